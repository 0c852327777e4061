"""Issue #15 targets on the whole built-in dataset: no agent earns S without reusing what it stored.

Bounds (per capability unless said):
- empty answer: 0.00 in every eval session, both arms;
- echo-the-prompt: S_on and S_off ≤ blind + 0.02;
- dump-every-search/list-result (never writes): S_off ≤ blind S_off (gathering is the issue's
  target; asserted everywhere);
- cross-episode (answers with the values the family's other episodes check): S ≤ blind + 0.05 in
  every capability (the v3 episodes are authored one by one, so a sibling's values never answer
  this episode; the generated v2 procedural families scored 0.88 here);
- paraphrase ≥ 0.85 × verbatim S_on on memory and update;
- blind |Δ| ≤ 0.02; the baselines separate on the on arm: blind < recall < curator < curator on
  hermes-plus (blind's on arm is its present work, issue 29: the same as its off arm).
"""

from __future__ import annotations

from functools import cache

import pytest

from pytest_pastbench.protocols.past.schema import CAPABILITIES
from tests.adversarial.agents import paraphrase, spell, spell_ordinal
from tests.adversarial.harness import Result, run_contestant


@cache
def result(name: str) -> Result:
    return run_contestant(name)


@pytest.mark.slow
def test_an_empty_answer_scores_zero_in_every_session() -> None:
    scores = result("empty").session_scores
    assert len(scores) > 300 and max(scores) == 0.0


@pytest.mark.slow
@pytest.mark.parametrize("capability", CAPABILITIES)
def test_echoing_the_prompt_earns_nothing(capability: str) -> None:
    echo, blind = result("echo"), result("blind")
    for arm in ("on", "off"):
        assert echo.s(capability, arm) <= blind.s(capability, arm) + 0.02


@pytest.mark.slow
@pytest.mark.parametrize("capability", CAPABILITIES)
def test_dumping_every_result_scores_no_more_than_blind(capability: str) -> None:
    assert result("dump").s(capability, "off") <= result("blind").s(capability, "off")


@pytest.mark.slow
@pytest.mark.parametrize("capability", CAPABILITIES)
def test_answering_with_the_other_episodes_values_earns_nothing(capability: str) -> None:
    cross, blind = result("cross_episode"), result("blind")
    for arm in ("on", "off"):
        assert cross.s(capability, arm) <= blind.s(capability, arm) + 0.05


@pytest.mark.slow
@pytest.mark.parametrize("capability", ["memory", "update"])
def test_a_correct_answer_in_other_words_keeps_its_score(capability: str) -> None:
    verbatim = result("verbatim").s(capability, "on")
    assert verbatim >= 0.3  # the ratio means something only if verbatim solves much of the capability
    assert result("paraphrase").s(capability, "on") >= 0.85 * verbatim


@pytest.mark.slow
@pytest.mark.parametrize("capability", CAPABILITIES)
def test_blind_gains_nothing_from_persistence(capability: str) -> None:
    blind = result("blind")
    assert abs(blind.s(capability, "on") - blind.s(capability, "off")) <= 0.02


@pytest.mark.slow
def test_the_offline_baselines_still_separate() -> None:
    on = [result(n).overall("on") for n in ("blind", "recall", "curator", "curator+hermes-plus")]
    blind = result("blind")
    assert abs(on[0] - blind.overall("off")) <= 0.02  # what blind earns, it earns without a store
    assert on == sorted(on) and len(set(on)) == 4


@pytest.mark.parametrize(
    ("text", "restated"),
    [
        ("Send it on the 3rd business day to @mira.k", "send it on third business day to @mira.k"),
        (
            "The budget is EUR 21,000 for 2026",
            "budget is eur twenty-one thousand for two thousand twenty-six",
        ),
        ("v2.3.1 on OPS-1234, 3.90 each", "v2.3.1 on ops-1234, 3.90 each"),
    ],
)
def test_the_paraphraser_restates_numbers_articles_and_case(text: str, restated: str) -> None:
    assert paraphrase(text) == restated
    assert (spell(105), spell_ordinal(21), spell_ordinal(12)) == (
        "one hundred five",
        "twenty-first",
        "twelfth",
    )


@pytest.mark.slow
@pytest.mark.parametrize("adversary", ["denier", "swapper", "hedger"])
@pytest.mark.parametrize("capability", CAPABILITIES)
def test_the_right_fact_denied_reversed_or_hedged_earns_nothing(adversary: str, capability: str) -> None:
    """Issue 27 item 5: an answer that names the right value and denies it, states old and new the
    wrong way round, or hedges between the two strongest candidates is no answer."""
    cheat, blind = result(adversary), result("blind")
    for arm in ("on", "off"):
        assert cheat.s(capability, arm) <= blind.s(capability, arm)


@pytest.mark.slow
def test_the_issue_27_adversaries_do_name_the_right_value() -> None:
    """The bound above means something only if the adversaries' answers hold the right value."""
    from pytest_pastbench.protocols.shared.matching import asserts_value

    hits = 0
    for record in result("hedger").records:
        for session in record.sessions:
            hits += any("hedges between" in c.detail for c in session.checks)
    assert hits > 100 and asserts_value("It's either WV-2207 or WV-2210.", "WV-2207")
