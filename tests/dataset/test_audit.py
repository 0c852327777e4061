"""The dataset audit: the built-in families pass it, and each rule catches what it is for."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_pastbench.cli import main
from pytest_pastbench.protocols.past.dataset.audit import BLIND_MAX, EXPECTED_SHAPE, ORACLE_MIN, audit
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
    report = audit([write(tmp_path, family)], check_counts=False)
    return {f.rule for f in report.findings}


def mutated(change) -> dict[str, Any]:
    family = copy.deepcopy(CLEAN)
    change(family["episodes"][0])
    return family


def test_the_built_in_dataset_passes_the_whole_audit() -> None:
    report = audit([families_dir()])
    assert report.findings == []
    assert report.counts() == EXPECTED_SHAPE
    assert set(report.blind_means) == set(EXPECTED_SHAPE)
    assert all(mean <= BLIND_MAX for mean in report.blind_means.values()), report.blind_means
    assert report.oracle_min is not None and report.oracle_min >= ORACLE_MIN


def test_a_clean_family_passes_every_rule_but_the_count(tmp_path: Path) -> None:
    assert rules(tmp_path, CLEAN) == set()
    report = audit([write(tmp_path, CLEAN)])
    assert {f.rule for f in report.findings} == {"counts"}
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
        [write(tmp_path / "b", CLEAN, name="notes_update")], check_counts=False, run_policies=False
    )
    assert "names" in {f.rule for f in report.findings}


def test_a_file_that_breaks_the_schema_is_a_finding(tmp_path: Path) -> None:
    broken = mutated(lambda episode: episode["sessions"][2].update(stage="evaluate"))
    report = audit([write(tmp_path, broken)], check_counts=False)
    [finding] = [f for f in report.findings if f.rule == "schema"]
    assert "episodes.0.sessions.2.stage" in finding.message and finding.where.endswith("tiny.yaml")


def test_validate_prints_the_counts_table_and_every_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", str(families_dir()), "--no-runs"]) == 0
    out = capsys.readouterr().out
    assert "capability      families    episodes  expected" in out
    for capability, (n_families, n_episodes) in EXPECTED_SHAPE.items():
        line = next(line for line in out.splitlines() if line.startswith(capability + " "))
        assert line.split()[1:3] == [str(n_families), str(n_episodes)]
    assert "audit passed: 26 families" in out

    write(tmp_path, mutated(_leak_key_fact))
    assert main(["validate", str(tmp_path), "--any-shape"]) == 1
    out = capsys.readouterr().out
    # The user's own set: no built-in "expected" shape beside its counts.
    assert "capability      families    episodes  blind on-arm mean" in out
    assert "expected" not in out and " / " not in out
    assert (
        f"FAIL [leak] {tmp_path / 'memory' / 'tiny.yaml'}::ep01[2]: the eval_near text states key fact" in out
    )
    assert "audit failed" in out


def test_an_unsatisfiable_check_names_file_episode_session_and_check(tmp_path: Path) -> None:
    report = audit([write(tmp_path, mutated(_unsatisfiable_check))], check_counts=False)
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

    report = audit([write(tmp_path, mutated(value_in_prompt))], check_counts=False, run_policies=False)
    assert [f.message for f in report.findings if f.rule == "leak"] == [
        "the eval text contains the any_of value 'Brightwater'"
    ]
