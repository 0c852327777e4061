"""The §8 protocol seam end to end, with a throw-away protocol module standing in for a real one:
collection by format tag, items measured in setup, worker → controller transport, the summary
section, the results file, the terminal section, infra errors and resume."""

from __future__ import annotations

import json

import pytest

FAKE_PROTOCOL = '''
"""A stand-in protocol: one item per entry of `cases`; reward = value; `boom` is an infra failure."""
from pytest_pastbench.loader import FamilyFileError
from pytest_pastbench.models import InfraError
from pytest_pastbench.protocols.base import ProtocolItem
import yaml


class FakeItem(ProtocolItem):
    protocol = "stream"

    def __init__(self, *, value, **kwargs):
        super().__init__(**kwargs)
        self.value = value

    def measure(self):
        if self.value == "boom":
            raise InfraError("provider down after 3 retries")
        return {"headline": f"reward {self.value:.2f}", "metrics": {"reward": self.value}}, [
            {"event": "served", "value": self.value}
        ]


def collect(parent):
    data = yaml.safe_load(parent.path.read_text())
    if not isinstance(data.get("cases"), dict):
        raise FamilyFileError(f"{parent.path}: cases: must be a mapping")
    for name, value in data["cases"].items():
        yield FakeItem.from_parent(parent, name=f"{name}[t0]", model="pastbench/recall", value=value)


def summarize(records, seed):
    rewards = [r["metrics"]["reward"] for r in records if not r["infra_blocked"]]
    return {"n": len(records), "blocked": sum(r["infra_blocked"] for r in records), "rewards": rewards}


def render(section):
    return f"FAKE TABLE n={section['n']} blocked={section['blocked']}"
'''

STREAM = "format: pastbench/stream-v1\ncases:\n  w_low: 0.25\n  w_high: 0.75\n"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(fake_stream=FAKE_PROTOCOL)
    pytester.makeconftest(
        "import pytest_pastbench.protocols as protocols\n"
        "protocols.PROTOCOL_MODULES['stream'] = 'fake_stream'\n"
    )
    (pytester.path / "families" / "streams").mkdir(parents=True)
    (pytester.path / "families" / "streams" / "retail.yaml").write_text(STREAM)
    return pytester


def _summary(pytester: pytest.Pytester, run_id: str) -> dict:
    return json.loads((pytester.path / "reports" / run_id / "sequence_summary.json").read_text())


@pytest.mark.parametrize("workers", ["0", "2"])
def test_protocol_items_run_and_report(project: pytest.Pytester, workers: str) -> None:
    result = project.runpytest_subprocess(
        "families", "-v", "-n", workers, "--pastbench-run-id=r", "--junitxml=junit.xml", "-m", "stream"
    )
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*STREAM reward 0.25*", "*FAKE TABLE n=2 blocked=0*"])
    assert "Δ = S_on" not in result.stdout.str()  # no PAST items: no Δ table
    summary = _summary(project, "r")
    assert summary["configs"] == []
    assert summary["protocols"]["stream"] == {"n": 2, "blocked": 0, "rewards": [0.75, 0.25]}
    results = json.loads((project.path / "reports" / "r" / "protocol_results.json").read_text())
    (high, low) = results["protocols"]["stream"]
    assert (high["family"], high["episode"], high["protocol"]) == ("stream.retail", "w_high", "stream")
    assert low["metrics"] == {"reward": 0.25} and low["dataset_hash"] == summary["run"]["dataset_hash"]
    assert "pastbench.metric.reward" in (project.path / "junit.xml").read_text()


def test_an_infra_failure_is_an_error_with_its_reason_not_a_zero(project: pytest.Pytester) -> None:
    (project.path / "families" / "streams" / "retail.yaml").write_text(STREAM + "  w_down: boom\n")
    result = project.runpytest_subprocess("families", "--pastbench-run-id=r")
    result.stdout.fnmatch_lines(["*infra_blocked: provider down after 3 retries*"])
    assert result.parseoutcomes()["errors"] == 1
    section = _summary(project, "r")["protocols"]["stream"]
    assert section["blocked"] == 1 and sorted(section["rewards"]) == [0.25, 0.75]


def test_a_malformed_protocol_file_is_a_collection_error_naming_it(project: pytest.Pytester) -> None:
    broken = project.path / "families" / "streams" / "broken.yaml"
    broken.write_text("format: pastbench/stream-v1\ncases: 3\n")
    result = project.runpytest_subprocess("families", "--pastbench-run-id=r")
    result.stdout.fnmatch_lines(["*broken.yaml: cases: must be a mapping*"])
    assert _summary(project, "r")["protocols"]["stream"]["n"] == 2  # the other file still ran


def test_resume_skips_finished_protocol_items(project: pytest.Pytester) -> None:
    first = project.runpytest_subprocess("families", "--pastbench-run-id=r")
    assert first.ret == 0, first.stdout.str()
    again = project.runpytest_subprocess("families", "--pastbench-resume=r")
    assert again.ret == 0, again.stdout.str()
    again.stdout.fnmatch_lines(["*2 deselected*"])
    assert _summary(project, "r")["protocols"]["stream"]["n"] == 2
