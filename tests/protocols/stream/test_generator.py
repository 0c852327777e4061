"""The seeded generator: determinism, scale, and that the rule engine gives every ticket exactly
one correct answer under the window's active rules."""

from __future__ import annotations

import json

from pytest_pastbench.protocols.stream.generator import dataset_counts, generate
from pytest_pastbench.protocols.stream.metrics import activation_runs
from pytest_pastbench.protocols.stream.rules import correct_answer, deciding_rule, is_hidden

from .streams import generated, packaged_streams, stream_named


def _dump(windows: list) -> str:
    return json.dumps([[t.to_json() for t in (*w.serving, *w.test)] for w in windows], sort_keys=True)


def test_generation_is_deterministic() -> None:
    stream = stream_named("banking_l3")
    assert _dump(generate(stream, "full")) == _dump(generate(stream_named("banking_l3"), "full"))


def test_the_packaged_streams_reach_the_issue_scale() -> None:
    streams = packaged_streams()
    counts = [dataset_counts(generated(s.id)) for s in streams]
    assert len(streams) >= 6
    assert {(s.family.domain, s.family.tier) for s in streams} == {
        (d, t) for d in ("retail", "banking") for t in ("L1", "L2", "L3")
    }
    assert sum(c["windows"] for c in counts) >= 30
    assert sum(c["tasks"] for c in counts) >= 4000


def test_the_sample_is_the_first_tickets_of_every_full_window() -> None:
    stream = stream_named("retail_l2")
    full, sample = generated(stream.id), generate(stream, "sample")
    for big, small in zip(full, sample, strict=True):
        assert [t.id for t in small.serving] == [t.id for t in big.serving[: len(small.serving)]]
        assert [t.id for t in small.test] == [t.id for t in big.test[: len(small.test)]]
        assert small.active == big.active
    seqs = [t.seq for w in sample for t in (*w.serving, *w.test)]
    assert seqs == list(range(len(seqs)))  # stream order, serving before test in every window


def test_every_generated_ticket_has_exactly_one_correct_answer() -> None:
    for stream in packaged_streams():
        documented = stream.domain.documented
        for window in generated(stream.id):
            active = stream.active(window.index)
            assert window.active == tuple(r.id for r in active)
            for task in (*window.serving, *window.test):
                matching = {r.answer for r in active if r.matches(task.facts)}
                assert len(matching) <= 1, (task.id, matching)  # no two active rules disagree
                assert task.answer == correct_answer(task.facts, documented, active)
                assert task.answer in task.options and len(set(task.options)) == len(task.options)
                assert (task.case == "hidden") == is_hidden(task.facts, documented, stream.rules)
                decider = deciding_rule(task.facts, active)
                assert task.decided_by == (decider.id if decider else None)
                for rule_id in task.stale:
                    rule = next(r for r in stream.rules if r.id == rule_id)
                    assert not stream.is_active(rule_id, window.index)
                    assert rule.matches(task.facts) and rule.answer != task.answer


def test_both_cases_and_every_rule_occur() -> None:
    for stream in packaged_streams():
        tasks = [t for w in generated(stream.id) for t in (*w.serving, *w.test)]
        assert {t.case for t in tasks} == {"hidden", "fully"}
        assert {t.decided_by for t in tasks} - {None} == {r.id for r in stream.rules}, stream.id


def test_activation_tables_follow_the_tiers() -> None:
    for stream in packaged_streams():
        rows = stream.family.activation
        runs = {rule_id: activation_runs(row) for rule_id, row in rows.items()}
        changes = sum(1 for row in rows.values() for a, b in zip(row, row[1:], strict=False) if a != b)
        assert all(stream.active(w) for w in range(stream.family.windows)), stream.id
        if stream.family.tier == "L1":
            assert all(len(r) == 1 for r in runs.values()), stream.id  # introduced once, no re-entry
        if stream.family.tier == "L2":
            # tightening / relaxation / migration: a rule is withdrawn as another takes over
            assert any(run[-1][1] < stream.family.windows - 1 for run in runs.values()), stream.id
        if stream.family.tier == "L3":
            assert sum(len(r) >= 2 for r in runs.values()) >= 2, stream.id  # removal and re-entry
        assert changes >= 3, stream.id


def test_retail_l1_is_the_papers_activation_table() -> None:
    # ServeLearnBench Table 8.
    assert stream_named("retail_l1").family.activation == {
        "H1": "XXXXXX",
        "D1": "-XX---",
        "D2": "--XXXX",
        "D3": "----XX",
        "D4": "-----X",
        "D5": "XXXXXX",
    }
