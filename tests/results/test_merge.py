"""``pastbench merge``: the shards of a run join into the run an unsharded pytest writes."""

from __future__ import annotations

import json
import shlex
from collections import defaultdict
from pathlib import Path

import pytest

from pytest_pastbench.cli import main
from pytest_pastbench.errors import MergeError
from pytest_pastbench.protocols.past.metrics import build_comparison, summarize
from pytest_pastbench.protocols.standalone import standalone_registry
from pytest_pastbench.results.item_record import ItemRecord
from pytest_pastbench.results.merge import merge_runs
from tests.docs_text import command_lines
from tests.family_samples import builtin_sample
from tests.written_runs import write_run


def read(run_dir: Path, name: str) -> dict:
    return json.loads((run_dir / name).read_text())


def without_run_times(data: dict) -> dict:
    run = {k: v for k, v in data["run"].items() if k not in ("id", "started", "finished")}
    return {**data, "run": run}


def readme_lines(start: str) -> list[list[str]]:
    """The docs' command lines that start with ``start``, split like a shell."""
    return [shlex.split(line, comments=True) for line in command_lines(start)]


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_three_shards_merge_into_the_unsharded_run(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two episodes of each sample family: 16 episodes still spread over all three shards.
    common = [
        *builtin_sample(episodes=("ep01", "ep02")),
        "--pastbench-model=pastbench/curator",
        "-q",
        "-n",
        "0",
    ]
    full = pytester.runpytest_subprocess(*common, "--pastbench-run-id=full")
    assert full.ret == 0, full.stdout.str()[-3000:]
    # The docs' commands: its shard job line for each K, then its merge and summarize lines.
    [[_, *shard_job]] = readme_lines("pytest --pastbench-shard=1/3")
    for k in (1, 2, 3):
        job = [arg.replace("1/3", f"{k}/3").replace("shard-1", f"shard-{k}") for arg in shard_job]
        shard = pytester.runpytest_subprocess(*common, *job)
        assert shard.ret == 0, shard.stdout.str()[-3000:]
    reports = pytester.path / "reports"

    # The shards partition the items and keep each episode's arms together.
    shard_ids = [
        {r["nodeid"] for r in read(reports / f"shard-{k}", "sequence_results.json")["records"]}
        for k in (1, 2, 3)
    ]
    full_records = read(reports / "full", "sequence_results.json")["records"]
    assert sum(len(ids) for ids in shard_ids) == len(full_records) == 32
    assert all(shard_ids)
    assert set().union(*shard_ids) == {r["nodeid"] for r in full_records}
    owner: dict[str, set[int]] = defaultdict(set)
    for index, ids in enumerate(shard_ids):
        for nodeid in ids:
            owner[nodeid.split("[")[0]].add(index)
    assert len(owner) == 16 and all(len(s) == 1 for s in owner.values())

    [[_, *merge_command]] = readme_lines("pastbench merge reports/shard-1")
    [[_, *summarize_command]] = readme_lines("pastbench summarize reports/merged")
    capsys.readouterr()
    assert main(merge_command) == 0
    assert (
        "merged 3 shards into reports/merged (pastbench summarize reports/merged)" in capsys.readouterr().out
    )
    assert main(summarize_command) == 0
    assert "update.SM04_rule_migration" in capsys.readouterr().out
    merged = reports / "merged"
    assert read(merged, "sequence_summary.json")["run"]["id"] == "merged"
    assert without_run_times(read(merged, "sequence_summary.json")) == without_run_times(
        read(reports / "full", "sequence_summary.json")
    )
    assert without_run_times(read(merged, "sequence_comparison.json")) == without_run_times(
        read(reports / "full", "sequence_comparison.json")
    )
    # Records (but their wall times) and the trace files are the unsharded run's too.
    strip = [{k: v for k, v in r.items() if k != "wall_s"} for r in full_records]
    assert [
        {k: v for k, v in r.items() if k != "wall_s"}
        for r in read(merged, "sequence_results.json")["records"]
    ] == strip
    traces = sorted(p.relative_to(merged) for p in (merged / "traces").rglob("*.jsonl"))
    assert traces == sorted(
        p.relative_to(reports / "full") for p in (reports / "full" / "traces").rglob("*.jsonl")
    )
    # A shard of another selection (here -k update) is not one of this command's shards.
    other = pytester.runpytest_subprocess(
        *common, "-k", "update", "--pastbench-shard=2/3", "--pastbench-run-id=k2"
    )
    assert other.ret == 0, other.stdout.str()[-3000:]
    mixed = ["merge", "reports/shard-1", "reports/k2", "reports/shard-3", "-o", "reports/mixed"]
    assert main(mixed) == 2
    assert "are shards of different selections" in capsys.readouterr().err
    some = traces[0]
    assert (merged / some).read_text() == next(
        (reports / f"shard-{k}" / some).read_text()
        for k in (1, 2, 3)
        if (reports / f"shard-{k}" / some).exists()
    )


# -- refusals, on small synthetic runs -------------------------------------------------------------


def record(nodeid: str, arm: str, score: float, **extra: object) -> ItemRecord:
    family = nodeid.split("/")[1] + "." + nodeid.split("/")[2].split(".")[0]
    return ItemRecord(
        nodeid=nodeid,
        family=family,
        capability=family.split(".")[0],
        episode=nodeid.split("::")[1].split("[")[0],
        arm=arm,
        model="pastbench/recall",
        agent="hermes",
        config_label="hermes@pastbench/recall",
        score=score,
        **extra,
    )


def make_run(
    root: Path,
    run_id: str,
    records: list[ItemRecord],
    shard: tuple[int, int] | None = (1, 2),
    selection: str = "sel-1",
    **run_extra: object,
) -> Path:
    """A finished run; by default shard 1/2 of the command whose selection hash is ``selection``."""
    families = {r.family: "h-" + r.family for r in records}
    if shard is not None:
        run_extra = {"shard": {"k": shard[0], "n": shard[1], "selection": selection}, **run_extra}
    run = {
        "id": run_id,
        "seed": 0,
        "dataset_hash": "x",
        "plugin_version": "0.1.0",
        "judge": None,
        "models": ["pastbench/recall"],
        "agent": "hermes",
        "persistence": "both",
        "trials": 1,
        "started": "2026-01-01T00:00:00Z",
        "finished": "2026-01-01T00:01:00Z",
        "families": families,
        **run_extra,
    }
    summary = summarize(records, run, int(run["seed"]))  # type: ignore[arg-type]
    traces = {r.nodeid: [{"kind": "score", "nodeid": r.nodeid}] for r in records}
    return write_run(root, run_id, run, records, traces, summary, build_comparison(summary))


EP1 = [
    record("families/memory/prefs.yaml::ep01[on-t0]", "on", 0.9),
    record("families/memory/prefs.yaml::ep01[off-t0]", "off", 0.2),
]
EP2 = [
    record("families/memory/prefs.yaml::ep02[on-t0]", "on", 0.7),
    record("families/memory/prefs.yaml::ep02[off-t0]", "off", 0.4),
]


def test_merge_of_synthetic_shards_rebuilds_summary_and_copies_traces(tmp_path: Path) -> None:
    a = make_run(tmp_path, "a", EP1, model_calls={"pastbench/recall": {"calls": 3, "cost_usd": 0.0}})
    b = make_run(tmp_path, "b", EP2, (2, 2), model_calls={"pastbench/recall": {"calls": 4, "cost_usd": 0.0}})
    # The path given is the merged run's folder; its name is the run id.
    out = merge_runs([a, b], tmp_path / "out", standalone_registry())
    assert out == tmp_path / "out"
    summary = read(out, "sequence_summary.json")
    assert summary["run"]["id"] == "out" and "shard" not in summary["run"]
    family = summary["configs"][0]["families"]["memory.prefs"]
    assert family["n_episodes"] == 2 and family["delta"] == pytest.approx(0.5)
    assert summary["run"]["model_calls"] == {"pastbench/recall": {"calls": 7, "cost_usd": 0.0}}
    assert summary["run"]["started"] == "2026-01-01T00:00:00Z"
    assert len(list((out / "traces").rglob("*.jsonl"))) == 4


def test_an_unpriced_models_unknown_cost_stays_unknown_and_calls_still_add(tmp_path: Path) -> None:
    a = make_run(tmp_path, "a", EP1, model_calls={"local/m": {"calls": 3, "cost_usd": None}})
    b = make_run(tmp_path, "b", EP2, (2, 2), model_calls={"local/m": {"calls": 4, "cost_usd": None}})
    merged = read(merge_runs([a, b], tmp_path / "out", standalone_registry()), "sequence_summary.json")
    assert merged["run"]["model_calls"] == {"local/m": {"calls": 7, "cost_usd": None}}
    # A label that differs between shards still does not add up.
    c = make_run(tmp_path, "c", EP2, (2, 2), model_calls={"local/m": {"calls": 4, "cost_usd": 0.5}})
    with pytest.raises(MergeError, match="differ in model_calls"):
        merge_runs([a, c], tmp_path / "m", standalone_registry())


def test_the_merged_run_is_the_folder_given_even_as_dot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = make_run(tmp_path, "a", EP1), make_run(tmp_path, "b", EP2, (2, 2))
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    assert merge_runs([a, b], Path("."), standalone_registry()) == Path(".")
    assert read(tmp_path / "here", "sequence_summary.json")["run"]["id"] == "here"


def test_different_seeds_are_refused(tmp_path: Path) -> None:
    a = make_run(tmp_path, "a", EP1)
    b = make_run(tmp_path, "b", EP2, (2, 2), seed=7)
    with pytest.raises(MergeError, match="differ in seed"):
        merge_runs([a, b], tmp_path / "m", standalone_registry())


def test_different_family_files_are_refused(tmp_path: Path) -> None:
    a = make_run(tmp_path, "a", EP1)
    b = make_run(tmp_path, "b", EP2, (2, 2), families={"memory.prefs": "another-file-hash"})
    with pytest.raises(MergeError, match="dataset hashes differ: family memory.prefs"):
        merge_runs([a, b], tmp_path / "m", standalone_registry())


def test_the_same_item_with_different_results_is_refused(tmp_path: Path) -> None:
    a = make_run(tmp_path, "a", EP1)
    b = make_run(tmp_path, "b", [EP1[0].model_copy(update={"score": 0.1}), *EP2], (2, 2))
    with pytest.raises(MergeError, match=r"ep01\[on-t0\] is in .* with different results"):
        merge_runs([a, b], tmp_path / "m", standalone_registry())


def test_merging_into_one_of_the_inputs_is_refused(tmp_path: Path) -> None:
    a = make_run(tmp_path, "a", EP1)
    b = make_run(tmp_path, "b", EP2, (2, 2))
    with pytest.raises(MergeError, match="is one of the runs being merged"):
        merge_runs([a, b], tmp_path / "a", standalone_registry())
    merge_runs([a, b], tmp_path / "m", standalone_registry())
    with pytest.raises(MergeError, match="m already holds a run: remove it or choose another -o"):
        merge_runs([a, b], tmp_path / "m", standalone_registry())


def test_a_run_merged_with_itself_is_refused(tmp_path: Path) -> None:
    a = make_run(tmp_path, "a", EP1)
    with pytest.raises(MergeError, match="a is given twice: a run cannot be merged with itself"):
        merge_runs([a, a], tmp_path / "m", standalone_registry())
    # A copy of the same shard is no better.
    copy = make_run(tmp_path, "copy", EP1)
    with pytest.raises(MergeError, match="are both shard 1/2: pass each shard once"):
        merge_runs([a, copy], tmp_path / "m", standalone_registry())


def test_only_the_shards_of_one_command_merge(tmp_path: Path) -> None:
    a = make_run(tmp_path, "a", EP1)
    unsharded = make_run(tmp_path, "whole", EP2, shard=None)
    with pytest.raises(MergeError, match="whole is not a shard: it ran without --pastbench-shard=K/N"):
        merge_runs([a, unsharded], tmp_path / "m", standalone_registry())
    # Shard 2/2 of another selection (another family folder, dataset or -k).
    elsewhere = make_run(tmp_path, "elsewhere", EP2, (2, 2), selection="sel-2")
    with pytest.raises(MergeError, match="are shards of different selections"):
        merge_runs([a, elsewhere], tmp_path / "m", standalone_registry())
    with pytest.raises(MergeError, match="one of 2 shards but .* one of 3"):
        merge_runs([a, make_run(tmp_path, "b3", EP2, (2, 3))], tmp_path / "m", standalone_registry())
    with pytest.raises(MergeError, match="shard 2/2 missing"):
        merge_runs([a], tmp_path / "m", standalone_registry())
    assert not (tmp_path / "m").exists()


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_shards_of_a_plasticity_run_merge_with_their_protocol_records(pytester: pytest.Pytester) -> None:
    from tests.protocols.plasticity.helpers import SMALL_TEXT_FAMILY, write_family

    # One task per split: the merge of protocol records does not depend on how many there are.
    small = {**SMALL_TEXT_FAMILY, "splits": {"train": 1, "id": 1, "ood": 1}}
    for name in ("rules_a", "rules_b"):
        write_family(pytester.path / "families" / "plasticity", {**small, "id": name})
    common = ["families", "--pastbench-plasticity-checkpoints=1", "--pastbench-persistence=on", "-q"]
    assert pytester.runpytest_subprocess(*common, "--pastbench-run-id=full").ret == 0
    for k in (1, 2):
        assert (
            pytester.runpytest_subprocess(*common, f"--pastbench-shard={k}/2", f"--pastbench-run-id=s{k}").ret
            == 0
        )
    reports = pytester.path / "reports"
    merged = merge_runs([reports / "s1", reports / "s2"], reports / "m", standalone_registry())
    full_summary, merged_summary = (
        read(reports / "full", "sequence_summary.json"),
        read(merged, "sequence_summary.json"),
    )
    assert set(merged_summary["protocols"]["plasticity"]["families"]) == {
        "plasticity.rules_a",
        "plasticity.rules_b",
    }
    assert merged_summary["protocols"] == full_summary["protocols"]
    without_wall = [
        {k: v for k, v in r.items() if k != "wall_s"}
        for run in (reports / "full", merged)
        for r in read(run, "protocol_results.json")["protocols"]["plasticity"]
    ]
    assert without_wall[:2] == without_wall[2:]
    assert len(list((merged / "traces").rglob("*.jsonl"))) == 2
    assert (merged / "plots" / "plasticity_rules_a.png").is_file()
