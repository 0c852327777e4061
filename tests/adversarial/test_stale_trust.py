"""Issue 29, item 3: an agent that applies what it stored and ignores newer evidence scores below
its own off arm where the present supersedes the store; the honest reference does not.

**The sessions of item 2** are the eval sessions where the present supersedes the store: a
``present`` check rejects something the learn sessions taught. The data names it, nothing is
guessed from wording: a value check's ``superseded`` values (old values, by the schema), or a guard
on the world (no ticket to that queue, assignee or priority) whose value the learn sessions
stated. **The families of item 2** are the families that hold such sessions, each taken on those
sessions: that is where a memory can mislead its agent, in any family (the built-in set has some in
every family). Where they outnumber the eval sessions that the store alone decides (no present
credit), the family is one of item 2 as a whole (in the built-in set ``SM08_present_overrides_store``
and ``PC05_revised_procedure``): an agent that trusts its store over the present loses more there
than its store wins it, so its family Δ, as the run summary reports it, lies below 0 with its CI
("memory hurt here").

**The honest reference** is the curator on ``hermes-plus``. The issue's test is whether memory
misleads an agent that trusts the present over its store when the present is newer. The base
curator does trust the present (``offline_policy._compose_answer``, ``_act``), but it keeps a
corrected note beside its correction on purpose: that is the paper's defect that E2 (entries carry
superseded-by) and E5 (the close pass retires what a correction replaced) exist to fix. Without
them its store serves stale values as current on the store's own questions, which is what the
adversary does, not what an honest agent does. With them the reference is the one the audit's
oracle rule and ``benchmarks/present_supersedes.py`` already use.

On the sessions of item 2 alone an honest agent's Δ is above 0 only through the store checks some
of them also carry: the present they ask for, its off arm reads as well (most of SM08's are present
alone, Δ 0 at best). So "the honest reference gets Δ > 0 there" is its Δ over those families:
its memory pays in every family where the adversary's memory hurts it, and on the sessions of
item 2 themselves it stays above the adversary."""

from __future__ import annotations

import json
import tempfile
from functools import cache
from pathlib import Path

import pytest

from pytest_pastbench.core.stats import paired_bootstrap_ci
from pytest_pastbench.protocols.shared.matching import normalise_for_match
from pytest_pastbench.protocols.shared.schema import ValueCheck, WorldStateCheck
from pytest_pastbench.results.render.table import memory_hurt
from tests.adversarial.agents import file_by_the_store, trust_the_store
from tests.adversarial.harness import Result, past_families, run_contestant
from tests.adversarial.present_supersedes import (
    HONEST,
    Session,
    delta,
    family_delta,
    meaningful,
    present_led_families,
    rejects_what_was_taught,
    session_pairs,
    summary_families,
    supersede_sessions,
)
from tests.present_samples import write_present_family


@cache
def sample_runs() -> tuple[set[Session], dict[str, Result]]:
    with tempfile.TemporaryDirectory() as tmp:
        family = write_present_family(Path(tmp))
        runs = {name: run_contestant(name, families=[family]) for name in ("stale_trust", "curator")}
        return supersede_sessions([family]), runs


def test_trusting_the_store_over_the_answer_it_is_given_keeps_the_notes_only() -> None:
    answer = (
        "From my notes:\n- The digest goes out at 16:00\n\nFrom the note 'Digest':\nNow at 11:30.\n\n"
        "As you said:\n- It goes out at 11:30 this time.\n\nOpened ticket: {}"
    )
    assert trust_the_store(answer) == "From my notes:\n- The digest goes out at 16:00\n\nOpened ticket: {}"
    assert (
        trust_the_store("From the note 'Digest':\nNow at 11:30.") == "From the note 'Digest':\nNow at 11:30."
    )


def test_trusting_the_store_files_a_ticket_by_the_stored_rule() -> None:
    notes = ["Disk alerts go to OPS-DISK at P2, assigned to @kai.r.", "The NAS is in rack 4."]
    call = {
        "id": "c1",
        "name": "tickets_create",
        "arguments": '{"title": "Disk alert", "body": "this time to OPS-NIGHT", "assignee": "@noor.h"}',
    }
    filed = file_by_the_store(call, notes)
    assert filed["arguments"] == (
        '{"title": "Disk alert", "body": "Disk alerts go to OPS-DISK at P2, assigned to @kai.r.\\n'
        'The NAS is in rack 4.", "assignee": "@kai.r", "queue": "OPS-DISK", "priority": "P2"}'
    )
    # A field the notes do not give is not taken from the present either (the policy set it from
    # the request or the world); other calls are untouched.
    only_queue = file_by_the_store(
        {**call, "arguments": '{"title": "x", "priority": "P1", "assignee": "@noor.h"}'},
        ["It goes to OPS-DISK."],
    )
    assert json.loads(only_queue["arguments"]) == {
        "title": "x",
        "queue": "OPS-DISK",
        "body": "It goes to OPS-DISK.",
    }
    search = {"id": "c2", "name": "memory_search", "arguments": '{"query": "disk"}'}
    assert file_by_the_store(search, notes) == search


def test_a_present_guard_counts_only_on_a_value_the_learn_sessions_taught() -> None:
    guard = WorldStateCheck(type="world_state", service="tickets", match={"queue": "QA-RELEASE"}, max_count=0,
                            min_count=0, evidence="present")  # fmt: skip
    taught = normalise_for_match("The changeover goes in as a ticket to QA-RELEASE at P1.")
    assert rejects_what_was_taught(guard, taught)
    assert not rejects_what_was_taught(guard, normalise_for_match("Tickets go to QA-AUDIT."))
    assert not rejects_what_was_taught(guard.model_copy(update={"evidence": "store"}), taught)
    old = ValueCheck(type="value", value="11:30", superseded=["16:00"], evidence="present")
    assert rejects_what_was_taught(old, "") and not rejects_what_was_taught(
        old.model_copy(update={"superseded": []}), taught
    )


def test_the_stale_trusting_agent_scores_below_its_off_arm_where_the_present_supersedes() -> None:
    where, runs = sample_runs()
    pairs, labels = session_pairs(runs["stale_trust"], where)
    [family] = pairs
    ci = paired_bootstrap_ci(pairs, seed=0, clusters=labels)
    assert delta(pairs[family]) < 0 and ci is not None and ci[1] < 0, (pairs, ci)


def test_the_honest_reference_gains_from_its_store_there() -> None:
    where, runs = sample_runs()
    curator = runs["curator"]
    assert curator.s("update", "on") > curator.s("update", "off")
    # Where the present supersedes, the curator is never below its off arm.
    pairs, _ = session_pairs(curator, where)
    [(_, family_pairs)] = pairs.items()
    assert all(on >= off for on, off in family_pairs)


@cache
def builtin_runs() -> tuple[set[Session], dict[str, Result]]:
    families = past_families()
    where = supersede_sessions(families)
    chosen = [f for f in families if any(w[0] == f.qualified_id for w in where)]
    return where, {name: run_contestant(name, families=chosen) for name in ("stale_trust", HONEST)}


@pytest.mark.slow
def test_on_the_built_in_data_the_stale_trusting_agent_has_delta_below_zero_in_every_such_family() -> None:
    where, runs = builtin_runs()
    assert where, "the built-in families have no session where the present supersedes the store"
    pairs, labels = session_pairs(runs["stale_trust"], where)
    assert {w[0] for w in where} == set(pairs)
    # Below 0 in every family; the CI over all of them (each family one stratum, its scenario
    # groups the resampled unit) below 0 too.
    assert all(delta(p) < 0 for p in pairs.values()), {f: delta(p) for f, p in pairs.items()}
    ci = paired_bootstrap_ci(pairs, seed=0, clusters=labels)
    assert ci is not None and ci[1] < 0, ci
    # And each family's own CI, wherever it is a figure of its own (MEANINGFUL_GROUPS scenario
    # groups or more), lies below 0 by the reports' rule ("memory hurt here"). A family with fewer
    # (one or two sessions in memory and gathering) is in the pooled CI above.
    judged = {f for f in pairs if meaningful(labels[f])}
    assert len(judged) >= len(pairs) // 2, sorted(judged)  # most families of item 2 are judged
    cis = {f: paired_bootstrap_ci({f: pairs[f]}, seed=0, clusters={f: labels[f]}) for f in judged}
    not_hurt = {
        f: (delta(pairs[f]), cis[f])
        for f in judged
        if not memory_hurt({"delta": delta(pairs[f]), "delta_ci": cis[f]})
    }
    assert not not_hurt, not_hurt


@pytest.mark.slow
def test_on_the_built_in_data_the_honest_reference_has_delta_above_zero_there() -> None:
    where, runs = builtin_runs()
    families = sorted({w[0] for w in where})
    honest = {f: family_delta(runs[HONEST], f) for f in families}
    assert all(d > 0 for d in honest.values()), honest
    # On the sessions of item 2 themselves it trusts the present: above the adversary everywhere.
    mine, _ = session_pairs(runs[HONEST], where)
    theirs, _ = session_pairs(runs["stale_trust"], where)
    below = {f: (delta(mine[f]), delta(theirs[f])) for f in families if delta(mine[f]) <= delta(theirs[f])}
    assert not below, below


# Sessions of item 2 the honest reference loses against its own off arm, each for a reason that is
# not its trusting the store (checked one by one: the answer, the actions, the failing check). The
# test below leaves them out and holds the rest to "not below the off arm" in every family; a
# session that starts to pass may leave the list (nothing fails while it stays).
#
# The answer marks only the value it can type as old: "come in through the side door on Cinder Yard
# (old)" leaves "the side door" itself standing as a claim beside the new entrance (the grader reads
# it so, as a careful person would). The five sessions the grader misread before ("Dock 4B (old)",
# "8,500 (old) units", "02:00 (old)", "0.5% (old)", "£250 (old)") left this list once it read a
# bracketed "(old)".
MARKS_THE_VALUE_NOT_THE_THING = {
    ("update.PC02_sop_patch_02", "ep06", 3),
}
# Not winnable by the reference's reading, which ties a note to a newer record by shared words:
# - SM03 ep08[5]: nothing in the request says the world holds something newer ("who do I call for
#   remote hands?"), and the policy looks a question up in the world only with nothing recalled;
#   its notes name the contractor the revised site note replaced;
# - SM04 ep07[4]: the stored schedule ("we pay twice a month, on the 15th and the last day of the
#   month", "Every Wednesday") shares no word with the revised one ("the supplier run is every
#   Friday"), so it is not seen as the same thing and stands beside it;
# - SM07 ep07[5]: a stored bare handle ("@ic-rota") with no word to tie it to the revised paging
#   note stands beside the handle that note names.
NOT_WINNABLE_BY_WORD_OVERLAP = {
    ("update.SM03_fact_correction", "ep08", 5),
    ("update.SM04_rule_migration", "ep07", 4),
    ("update.SM07_scoped_rule_migration", "ep07", 5),
}


@pytest.mark.slow
def test_on_the_built_in_data_the_honest_reference_is_not_below_its_off_arm_there() -> None:
    where, runs = builtin_runs()
    excused = MARKS_THE_VALUE_NOT_THE_THING | NOT_WINNABLE_BY_WORD_OVERLAP
    assert excused <= where, sorted(excused - where)  # every excused session is one of item 2
    pairs, _ = session_pairs(runs[HONEST], where - excused)
    below = {f: round(delta(p), 3) for f, p in pairs.items() if delta(p) < 0}
    assert not below, below


@pytest.mark.slow
def test_on_the_built_in_data_memory_hurt_the_stale_trusting_agent_in_the_present_led_families() -> None:
    families = past_families()
    led = present_led_families(families)
    assert led, "no built-in family is led by sessions where the present supersedes the store"
    _, runs = builtin_runs()
    stale, honest = summary_families(runs["stale_trust"]), summary_families(runs[HONEST])
    # The reports mark these families "memory hurt here" for the adversary, never for the reference.
    assert all(memory_hurt(stale[f]) for f in led), {
        f: (stale[f]["delta"], stale[f]["delta_ci"]) for f in led
    }
    assert all(honest[f]["delta"] > 0 and not memory_hurt(honest[f]) for f in led), {
        f: (honest[f]["delta"], honest[f]["delta_ci"]) for f in led
    }
