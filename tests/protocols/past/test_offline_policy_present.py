"""Issue 29: the reference policies do the work that needs no store, from the prompt and the
world, and differ only where the present and their notes disagree (families written here, in the
new schema: tests/present_samples.py)."""

from __future__ import annotations

import tempfile
from functools import cache
from pathlib import Path

import pytest

from pytest_pastbench.protocols.past import engine
from pytest_pastbench.protocols.past.dataset.audit import audit
from pytest_pastbench.protocols.past.engine import ItemSpec
from pytest_pastbench.protocols.standalone import standalone_registry
from tests.adversarial.harness import CONTESTANTS, Result, run_contestant
from tests.present_samples import CASES, write_present_family

PRESENT = 2  # the eval_far session of each episode: the present supersedes the learn session


@cache
def run(name: str) -> Result:
    with tempfile.TemporaryDirectory() as tmp:
        return run_contestant(name, families=[write_present_family(Path(tmp))])


def session_scores(result: Result, index: int) -> dict[str, list[float]]:
    """Arm -> s_e of session ``index`` in every episode, in episode order."""
    found: dict[str, list[float]] = {"on": [], "off": []}
    for record in sorted(result.records, key=lambda r: (r.episode, r.arm)):
        found[record.arm] += [s.s for s in record.sessions if s.index == index]
    return found


@cache
def answers(name: str, index: int, arm: str) -> list[str]:
    """The final answer of session ``index`` in every episode (from the item's trace)."""
    found = []
    with tempfile.TemporaryDirectory() as tmp:
        family = write_present_family(Path(tmp))
        for episode in family.episodes:
            agent, model = CONTESTANTS[name](family, episode)
            spec = ItemSpec(f"x::{episode.id}", family, episode, arm, 0, "m", name, "d")
            trace = engine.run(spec, agent, model, Path(tmp) / episode.id).trace
            said = [
                e["content"]
                for e in trace
                if e.get("kind") == "message" and e.get("role") == "assistant" and e.get("session") == index
            ]
            found.append(said[-1])
    return found


def test_the_sample_family_follows_the_new_rules(tmp_path: Path) -> None:
    write_present_family(tmp_path)
    report = audit([tmp_path], standalone_registry(), check_counts=False)
    rules = {f.rule for f in report.findings}
    assert not rules & {"schema", "present_source", "leak", "oracle", "empty", "blind", "blind_delta"}, rules
    assert report.present_share == {"update": 0.5, "total": 0.5}


def test_every_policy_does_the_present_work_without_a_store() -> None:
    for name in ("blind", "recall", "curator"):
        assert session_scores(run(name), PRESENT)["off"] == [1.0] * len(CASES), name


def test_blind_uses_the_world_and_the_prompt_alike_on_both_arms() -> None:
    blind = run("blind")
    assert session_scores(blind, PRESENT)["on"] == [1.0] * len(CASES)
    assert blind.s("update", "on") == blind.s("update", "off") == 0.5


def test_the_curator_goes_with_the_present_and_names_its_note_as_outdated() -> None:
    curator = run("curator")
    assert session_scores(curator, PRESENT)["on"] == [1.0] * len(CASES)
    assert curator.s("update", "on") - curator.s("update", "off") == 0.5  # the store questions
    named_outdated = 0
    for case, answer in zip(CASES, answers("curator", PRESENT, "on"), strict=True):
        assert case["current"] in answer
        lines = answer.splitlines()
        outdated = [line for line in lines if line.startswith("Outdated: my old note said")]
        # The old value only ever on an "Outdated" line; what the note says that the present does
        # not replace (the stored value) still stands, unmarked.
        assert all(case["old"] not in line for line in lines if line not in outdated)
        assert all(case["stored"] not in line and line.endswith("is newer).") for line in outdated)
        # The old value named as old where it stands ("45 (old) days", "Inkwell (old)").
        named_outdated += any(f"{case['old'].split()[0]} (old)" in line for line in outdated)
    # A question about a filed document goes straight to the archive (no note recalled to name).
    assert named_outdated == len(CASES) - 1


def test_recall_pastes_notes_and_world_side_by_side_and_keeps_the_stale_value() -> None:
    recall = run("recall")
    # Its answer lays old and new side by side; where the present record says so itself ("now
    # 90 days"), a careful reader still finds the current value, so it never beats the curator.
    curator = session_scores(run("curator"), PRESENT)["on"]
    assert all(r <= c for r, c in zip(session_scores(recall, PRESENT)["on"], curator, strict=True))
    for case, answer in zip(CASES, answers("recall", PRESENT, "on"), strict=True):
        assert case["current"] in answer and case["old"] in answer
        assert "Outdated" not in answer


def test_an_override_in_the_request_wins_over_the_stored_rule_for_this_ticket(tmp_path: Path) -> None:
    from pytest_pastbench.core.store import Store
    from tests.protocols.past.test_offline_policy import session

    store = Store(tmp_path)
    session(
        "curator",
        store,
        "Please write the on-call note. Disk alerts on the Harbor cluster go to OPS-STORAGE.",
    )
    ask = (
        "A disk alert fired on the Harbor cluster. This time, file the ticket in OPS-NIGHT instead. Open it."
    )
    run = session("curator", store, ask, index=1)
    [create] = [c for c in run.tool_calls if c.name == "tickets_create"]
    assert create.arguments["queue"] == "OPS-NIGHT"
    [outdated] = [line for line in run.answer.splitlines() if line.startswith("Outdated")]
    assert "OPS-STORAGE (old)" in outdated and "what you said is newer" in outdated
    # Without the store the request alone says where it goes.
    blind = session("blind", Store(tmp_path / "blind"), ask)
    assert [c.arguments["queue"] for c in blind.tool_calls if c.name == "tickets_create"] == ["OPS-NIGHT"]


@pytest.mark.parametrize("mechanisms", [None, ["all"]])
def test_a_stored_queue_a_newer_note_replaces_is_not_acted_on_and_its_priority_still_is(
    tmp_path: Path, mechanisms: list[str] | None
) -> None:
    # With every mechanism E1 holds the ticket and shows the stored notes: the re-plan weighs them
    # against the present too.
    from pytest_pastbench.core.store import Store
    from pytest_pastbench.protocols.past.schema import WorldSeed
    from tests.protocols.past.test_offline_policy import session

    store = Store(tmp_path)
    session(
        "curator",
        store,
        "Note for later: Ledger release tickets go in CAB-LEDGER at P2.",
        mechanisms=mechanisms,
    )
    world = WorldSeed(
        notes=[
            {
                "title": "Ledger releases",
                "body": "Ledger release tickets are filed in the REL-FIN queue.",
            }
        ]
    )
    ask = "Please open the Ledger release ticket for tonight's fix; risk put out a new release process note."
    run = session("curator", store, ask, world=world, index=1, mechanisms=mechanisms)
    [create] = [c for c in run.tool_calls if c.name == "tickets_create"]
    assert create.arguments["queue"] == "REL-FIN" and create.arguments["priority"] == "P2", create.arguments
    assert "CAB-LEDGER" not in create.arguments["body"]
    [outdated] = [line for line in run.answer.splitlines() if line.startswith("Outdated")]
    assert "CAB-LEDGER (old)" in outdated, run.answer
    # Not told the note is newer, and it does not say it changed anything: the note is no newer
    # than what was taught, both stand.
    again = "Please open the Ledger release ticket for tonight's fix, as in the note."
    plain = session("curator", store, again, world=world, index=2, mechanisms=mechanisms)
    assert not [line for line in plain.answer.splitlines() if line.startswith("Outdated")], plain.answer


def test_a_newer_record_replaces_only_a_value_of_the_same_form() -> None:
    """A record about the same thing retires a stored value only where it gives another value of
    that form (a rate for a rate, a code of the same pattern): a time or a rate beside a stored
    zone code leaves it standing. (Two values of one form for different attributes, a zone "nw-4"
    and a request id "RQ-5521", are still told apart only by the words around them.)"""
    from pytest_pastbench.protocols.past.offline_policy import _split_outdated

    note = "Kestrel 3.1 ships to zone nw-4 first, with a defect ceiling of 0.8%"
    holds, old = _split_outdated(note, "The Kestrel 3.1 rollout was moved: it starts at 10:40, 25% of hosts.")
    assert old == [] and holds == [note]
    holds, old = _split_outdated(note, "The Kestrel 3.1 rollout was moved to zone se-2 instead.")
    assert old == ["Kestrel 3.1 ships to zone nw-4 first"], (holds, old)
    # the stored ceiling is a bound: a measured rate the record gives does not retire it
    _, old = _split_outdated(
        "the Kestrel defect ceiling is 0.8%", "Kestrel defects measured 0.65% this week."
    )
    assert old == []


def test_a_version_in_the_request_is_no_sentence_end_and_a_change_queue_is_no_revision() -> None:
    from pytest_pastbench.protocols.past.offline_policy import Record, _superseding

    note = "The Kestrel rollout goes to zone nw-4 first."
    ticket = Record("the ticket RQ-88 (Kestrel rollout, change queue)", "Zone se-2 asked to go next.")
    # a request naming a posted measurement in a queue ("3.1.2" is one version, not three clauses)
    asked = "Ops posted the Kestrel 3.1.2 numbers in the change queue. Which zone is first?"
    assert _superseding(note, [ticket], asked) == []
