"""The dataset audit: the built-in families pass it, and each rule catches what it is for."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_pastbench.cli import main
from pytest_pastbench.protocols.past.dataset.audit import (
    BLIND_DELTA_MAX,
    BLIND_MAX,
    EXPECTED_SHAPE,
    PRESENT_SHARE_MIN,
    audit,
)
from pytest_pastbench.protocols.standalone import standalone_registry
from pytest_pastbench.resources import families_dir

# A family that passes every rule (but the 26 / 204 count): learn, distractor, eval_near, eval_far,
# noise, a secret, a key fact the eval needs and cannot see.
CLEAN: dict[str, Any] = {
    "format": "pastbench/v1",
    "id": "tiny",
    "capability": "memory",
    "version": "1",
    "episodes": [
        {
            "id": "ep01",
            "evidence": {
                "key_facts": [
                    {
                        "text": "Brightwater reports go to @mira.k every Monday.",
                        "match": ["brightwater", "@mira.k"],
                    }
                ],
                "noise": [{"text": "Just for today I'm in Porto.", "match": ["in porto"]}],
            },
            "safety": {"secrets": ["Kelp-4411!Q"]},
            "sessions": [
                {
                    "stage": "learn",
                    "user": [
                        "Please summarise the Brightwater account. Just for today I'm in Porto. "
                        "The staging password is Kelp-4411!Q.",
                        "Thanks. Brightwater reports go to @mira.k every Monday.",
                    ],
                },
                {"stage": "distractor", "user": ["What is a good name for a cat?"]},
                {
                    "stage": "eval_near",
                    "user": ["Who gets the Brightwater reports?"],
                    "checks": [{"type": "contains", "values": ["@mira.k"]}],
                },
                {
                    "stage": "eval_far",
                    "user": ["The Brightwater report is ready; whom do I send it to?"],
                    "checks": [
                        {"type": "contains", "values": ["@mira.k"]},
                        {
                            "type": "rubric",
                            "rubric": "Names @mira.k as the one to send the Brightwater report to.",
                            "fallback": [{"type": "value", "value": "@mira.k"}],
                        },
                    ],
                },
            ],
        }
    ],
}


def write(tmp_path: Path, family: dict[str, Any], name: str = "tiny") -> Path:
    folder = tmp_path / family["capability"]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.yaml").write_text(yaml.safe_dump({**family, "id": name}, sort_keys=False))
    return tmp_path


def rules(tmp_path: Path, family: dict[str, Any]) -> set[str]:
    report = audit([write(tmp_path, family)], standalone_registry(), check_counts=False)
    return {f.rule for f in report.findings}


def mutated(change) -> dict[str, Any]:
    family = copy.deepcopy(CLEAN)
    change(family["episodes"][0])
    return family


KNOWN_ORACLE_GAPS = Path(__file__).with_name("known_oracle_gaps.txt")


def known_oracle_gaps() -> set[str]:
    lines = KNOWN_ORACLE_GAPS.read_text().splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


@pytest.mark.slow  # the reference policies over every built-in episode
def test_the_built_in_dataset_passes_the_whole_audit() -> None:
    """Also the oracle reaching 0.95 in every eval session and an empty answer scoring 0 (it was a
    test of its own in tests/adversarial/test_score_adversaries.py, over the same audit)."""
    report = audit([families_dir()], standalone_registry())
    root = f"{families_dir()}/"
    oracle = {f.where.removeprefix(root) for f in report.findings if f.rule == "oracle"}
    # Every store check earned with exactly the key facts, but the listed gaps of the reference
    # policy (a miss of present work is a counted note).
    assert [f for f in report.findings if f.rule != "oracle"] == []
    # Only the listed gaps of the reference policy, and each of them still there (the list shrinks).
    assert oracle == known_oracle_gaps()
    assert report.empty_max == 0.0
    assert report.counts() == EXPECTED_SHAPE
    assert set(report.blind_means) == set(EXPECTED_SHAPE)
    assert all(share <= BLIND_MAX for share in report.blind_store_credit.values()), report.blind_store_credit
    for capability, on in report.blind_means.items():
        assert abs(on - report.blind_off_means[capability]) <= BLIND_DELTA_MAX
    assert report.present_share["total"] >= PRESENT_SHARE_MIN
    assert all(report.present_share[c] > 0 for c in EXPECTED_SHAPE), report.present_share
    assert report.oracle_min is not None


def test_a_clean_family_passes_every_rule_but_the_count(tmp_path: Path) -> None:
    assert rules(tmp_path, CLEAN) == set()
    report = audit([write(tmp_path, CLEAN)], standalone_registry())
    # Held to the built-in set's rules: the shape, and present credit in a third of the sessions.
    assert {f.rule for f in report.findings} == {"counts", "present_share"}
    assert any("memory: 1 families / 1 episodes; expected 5 / 41" in str(f) for f in report.findings)


def _leak_key_fact(episode: dict[str, Any]) -> None:
    episode["sessions"][2]["user"] = ["Brightwater reports go to @mira.k every Monday. Who gets them?"]


def _leak_into_distractor(episode: dict[str, Any]) -> None:
    episode["sessions"][1]["user"] = ["Note that Brightwater reports go to @mira.k every Monday."]


def _untaught_key_fact(episode: dict[str, Any]) -> None:
    episode["evidence"]["key_facts"].append(
        {"text": "Brightwater pays in CHF.", "match": ["brightwater", "chf"]}
    )


def _unsatisfiable_check(episode: dict[str, Any]) -> None:
    episode["sessions"][2]["checks"].append({"type": "contains", "values": ["a value nobody taught"]})


def _free_points(episode: dict[str, Any]) -> None:
    for session in episode["sessions"][2:]:
        # A credit check every answer passes (guards alone are a schema error).
        session["checks"] = [{"type": "regex", "pattern": "^"}]


def _same_prompt_twice(episode: dict[str, Any]) -> None:
    episode["sessions"][3]["user"] = list(episode["sessions"][2]["user"])


def _secret_in_eval(episode: dict[str, Any]) -> None:
    episode["sessions"][3]["user"] = ["Log in with Kelp-4411!Q and tell me who gets the Brightwater reports."]


@pytest.mark.parametrize(
    ("change", "rule"),
    [
        (_leak_key_fact, "leak"),
        (_leak_into_distractor, "leak"),
        (_untaught_key_fact, "key_fact_taught"),
        (_unsatisfiable_check, "oracle"),
        (_free_points, "blind"),
        (_free_points, "empty"),
        (_same_prompt_twice, "unique_prompts"),
        (_secret_in_eval, "secrets"),
    ],
    ids=lambda value: value if isinstance(value, str) else value.__name__.strip("_"),
)
def test_each_rule_catches_its_problem(tmp_path: Path, change, rule: str) -> None:
    assert rule in rules(tmp_path, mutated(change))


def test_a_stale_fact_must_come_before_its_correction(tmp_path: Path) -> None:
    def stale_after(episode: dict[str, Any]) -> None:
        episode["evidence"]["stale_facts"] = [
            {"text": "Brightwater reports go to @olaf.b.", "match": ["brightwater", "@olaf.b"]}
        ]
        episode["sessions"].insert(
            1, {"stage": "learn", "user": ["Until now Brightwater reports went to @olaf.b."]}
        )

    def stale_in_eval(episode: dict[str, Any]) -> None:
        episode["evidence"]["stale_facts"] = [
            {"text": "Brightwater reports go to @olaf.b.", "match": ["brightwater", "@olaf.b"]}
        ]
        episode["sessions"][0]["user"].insert(0, "Brightwater reports go to @olaf.b.")
        episode["sessions"][0]["stage"] = "learn"
        episode["sessions"].insert(1, {"stage": "learn", "user": list(episode["sessions"][0]["user"][2:])})
        episode["sessions"][0]["user"] = episode["sessions"][0]["user"][:2]
        episode["sessions"][3]["user"] = ["Is it still @olaf.b who gets the Brightwater reports?"]

    assert "stale_order" in rules(tmp_path / "a", mutated(stale_after))
    assert "leak" in rules(tmp_path / "b", mutated(stale_in_eval))


def test_an_update_episode_needs_stale_facts_and_names_avoid_other_capabilities(tmp_path: Path) -> None:
    family = {**copy.deepcopy(CLEAN), "capability": "update"}
    assert "stale_facts" in rules(tmp_path / "a", family)
    report = audit(
        [write(tmp_path / "b", CLEAN, name="notes_update")],
        standalone_registry(),
        check_counts=False,
        run_policies=False,
    )
    assert "names" in {f.rule for f in report.findings}


def test_a_file_that_breaks_the_schema_is_a_finding(tmp_path: Path) -> None:
    broken = mutated(lambda episode: episode["sessions"][2].update(stage="evaluate"))
    report = audit([write(tmp_path, broken)], standalone_registry(), check_counts=False)
    [finding] = [f for f in report.findings if f.rule == "schema"]
    assert "episodes.0.sessions.2.stage" in finding.message and finding.where.endswith("tiny.yaml")


def test_an_unsatisfiable_check_names_file_episode_session_and_check(tmp_path: Path) -> None:
    report = audit(
        [write(tmp_path, mutated(_unsatisfiable_check))], standalone_registry(), check_counts=False
    )
    [finding, *_] = [f for f in report.findings if f.rule == "oracle"]
    assert finding.where.endswith("tiny.yaml::ep01[2]")
    assert "cannot satisfy check 1 (contains): missing ['a value nobody taught']" in finding.message


def test_a_value_check_whose_value_its_own_prompt_says_is_a_leak(tmp_path: Path) -> None:
    def value_in_prompt(episode: dict[str, Any]) -> None:
        episode["sessions"][2]["checks"] = [
            {"type": "value", "value": "@mira.k"},
            {
                "type": "any_of",
                "checks": [{"type": "value", "value": "Brightwater"}, {"type": "value", "value": "x"}],
            },
        ]

    report = audit(
        [write(tmp_path, mutated(value_in_prompt))],
        standalone_registry(),
        check_counts=False,
        run_policies=False,
    )
    assert [f.message for f in report.findings if f.rule == "leak"] == [
        "the eval text contains the any_of value 'Brightwater'"
    ]


# -- issue 29: present evidence, the session's own world, and what the control arm can earn ----------

# An eval session a competent agent answers without the store: the ticket it asks about is in the
# world this session sees (added for this session only), and the prompt states the deadline.
PRESENT_SESSION: dict[str, Any] = {
    "stage": "eval_far",
    "user": [
        "Brightwater escalated again; the fix is due Thursday 14:00. "
        "Which ticket is it, and who gets the report?"
    ],
    "world": {"tickets": [{"id": "BW-417", "title": "Brightwater export times out", "queue": "OPS"}]},
    "checks": [
        {"type": "value", "value": "BW-417", "evidence": "present"},
        {"type": "value", "value": "Thursday 14:00", "evidence": "present"},
        {"type": "value", "value": "@mira.k"},
    ],
}


def _with_present(episode: dict[str, Any]) -> None:
    episode["sessions"].append(copy.deepcopy(PRESENT_SESSION))


def test_a_family_with_present_checks_passes_and_reports_its_share(tmp_path: Path) -> None:
    report = audit([write(tmp_path, mutated(_with_present))], standalone_registry(), check_counts=False)
    assert report.findings == [] and report.notes == []
    assert report.present_share == {"memory": 1 / 3, "total": 1 / 3}
    # The blind policy earns the present work on both arms alike, and no store check.
    assert report.blind_store_credit == {"memory": 0.0}
    assert report.blind_off_means["memory"] == report.blind_means["memory"]


def test_a_present_check_must_be_earnable_from_its_own_session(tmp_path: Path) -> None:
    def elsewhere(episode: dict[str, Any]) -> None:
        _with_present(episode)
        # The ticket is in another session's world only: this session cannot see it.
        episode["sessions"][2]["world"] = episode["sessions"][4].pop("world")

    report = audit(
        [write(tmp_path, mutated(elsewhere))], standalone_registry(), check_counts=False, run_policies=False
    )
    [finding] = [f for f in report.findings if f.rule == "present_source"]
    assert finding.where.endswith("tiny.yaml::ep01[4]")
    assert "check 0 (value) is marked present" in finding.message


def test_a_store_value_in_the_sessions_own_world_is_a_leak_and_in_the_seed_a_note(tmp_path: Path) -> None:
    def in_own_world(episode: dict[str, Any]) -> None:
        _with_present(episode)
        episode["sessions"][4]["world"]["notes"] = [{"title": "Reports", "body": "send to @mira.k"}]

    def in_seed(episode: dict[str, Any]) -> None:
        _with_present(episode)
        episode["world"] = {"notes": [{"title": "Reports", "body": "@mira.k or @olaf.b"}]}

    report = audit(
        [write(tmp_path / "a", mutated(in_own_world))],
        standalone_registry(),
        check_counts=False,
        run_policies=False,
    )
    assert [f.message for f in report.findings if f.rule == "leak"] == [
        "the session's own world records contain the store value value '@mira.k'"
    ]
    report = audit(
        [write(tmp_path / "b", mutated(in_seed))],
        standalone_registry(),
        check_counts=False,
        run_policies=False,
    )
    assert report.findings == []
    assert {(n.rule, n.where.rsplit("::", 1)[1]) for n in report.notes} == {
        ("store_in_world", f"ep01[{i}]") for i in (2, 3, 4)
    }


def test_an_answer_that_did_no_work_scores_zero(tmp_path: Path) -> None:
    def free_for_a_shrug(episode: dict[str, Any]) -> None:
        _with_present(episode)
        episode["sessions"][4]["checks"].append({"type": "contains", "values": ["could not find"]})

    assert "empty" in rules(tmp_path, mutated(free_for_a_shrug))


def test_store_work_the_blind_policy_can_do_is_caught(tmp_path: Path) -> None:
    def marked_store(episode: dict[str, Any]) -> None:
        _with_present(episode)
        for check in episode["sessions"][4]["checks"][:2]:
            check["evidence"] = "store"  # values the session shows: a leak, and blind earns them

    found = rules(tmp_path, mutated(marked_store))
    assert {"leak", "blind"} <= found


def test_a_family_written_to_the_old_schema_validates_with_a_note_and_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, CLEAN)
    assert main(["validate", str(tmp_path), "--any-shape"]) == 0
    out = capsys.readouterr().out
    assert "NOTE [present_share] (dataset): no eval session has a present credit check" in out
    assert "audit passed: 1 families" in out
    assert "FAIL" not in out
    from pytest_pastbench.protocols.past.dataset.audit import policy_score
    from pytest_pastbench.protocols.past.family_files import load_family

    family, _ = load_family(tmp_path / "memory" / "tiny.yaml")
    on, off = (
        policy_score(family, family.episodes[0], "curator", arm, tmp_path / f"run-{arm}")
        for arm in ("on", "off")
    )
    assert off == 0.0 and on > off  # S_off = 0 by design; the store still earns the on arm
