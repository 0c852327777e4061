"""The protocol seam end to end, with a throw-away protocol registered through the hook
``pytest_pastbench_register_protocols`` in a conftest (no monkeypatching): collection by format
tag, items measured in setup, worker → controller transport, the summary section, the results
file, the terminal section, infra errors, resume, a baseline gate and the merge of two shards.
What the stand-in declares (its option and ini key with their `pytest --help` section, the resume
field that option is, its gate metrics, JUnit properties, HTML section and figure) reaches the
shared layers through the protocol interface and the hooks alone: no shared code names it."""

from __future__ import annotations

import json

import pytest

FAKE_PROTOCOL = '''
"""A stand-in protocol: one item per entry of `cases`; reward = value; `boom` is an infra failure."""
from pytest_pastbench.core.family_files import FamilyFileError
from pytest_pastbench.models.client import InfraError
from pytest_pastbench.plugin.option_spec import OptionGroup, OptionSpec
from pytest_pastbench.plugin.run_handle import pastbench_run
from pytest_pastbench.protocols.base import GateMetric, HtmlSection, ProtocolBase, ProtocolItem
from pytest_pastbench.results.render.figure_kit import FigureSpec, needs, new_figure, protocol_section
from pathlib import Path
import yaml

# Its option, as data: --pastbench-fake-level, the ini key pastbench_fake_level, options.fake_level.
# It changes what an item measures, so a resume must keep it.
OPTIONS = OptionGroup(
    "fake",
    "fake protocol (the stand-in)",
    (OptionSpec("fake-level", "how hard the cases are", kind=int, default=1, low=1, resume=True),),
)


class FakeItem(ProtocolItem):
    protocol = "fake"

    def __init__(self, *, value, **kwargs):
        super().__init__(**kwargs)
        self.value = value

    def measure(self):
        if self.value == "boom":
            raise InfraError("provider down after 3 retries")
        level = pastbench_run(self.config).options.fake_level
        return {"headline": f"reward {self.value:.2f}", "level": level, "metrics": {"reward": self.value}}, [
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


def draw_rewards(summary):
    fig, area = new_figure((4.0, 3.0))
    rewards = protocol_section(summary, "fake")["rewards"]
    area.subplots().bar(range(len(rewards)), rewards)
    return fig


class FakeProtocol(ProtocolBase):
    name = "fake"
    format_tag = "pastbench/fake-v1"
    markers = {"fake": "the stand-in protocol"}
    gate_metric_names = frozenset({"mean_reward"})
    options = OPTIONS

    def junit_properties(self, record):
        return [*super().junit_properties(record), ("pastbench.fake.level", record.get("level"))]

    def figures(self):
        found = needs(lambda summary: protocol_section(summary, "fake").get("rewards"), "no fake item scored")
        caption = "Reward per case of the stand-in"
        return [FigureSpec("fake_rewards.png", "fake", caption, found, draw_rewards)]

    def items(self, parent):
        return collect(parent)

    def summarize(self, records, seed):
        return summarize(records, seed)

    def render_section(self, section):
        return render(section)

    def describe(self, path):
        return f"fake.{path.stem}"

    title = "Fake: the stand-in protocol"

    def html_section(self, summary):
        # Its own template beside this module; the answer is untrusted text, as a model's would be.
        section = self.section(summary)
        answer = "<script>alert(1)</script> & done"
        context = {"rows": [[f"{r:.2f}"] for r in section["rewards"]], "answer": answer}
        return HtmlSection(Path(__file__).parent / "fake_section.html.j2", context)

    def gate_metrics(self, summary):
        section = self.section(summary)
        if not section or not section["rewards"]:
            return []
        value = sum(section["rewards"]) / len(section["rewards"])
        return [GateMetric(self.name, "fake@pastbench/recall", "overall", "mean_reward", value)]


def pytest_pastbench_register_protocols(register):
    register(FakeProtocol())


def pytest_pastbench_register_options(register):
    register(OPTIONS)
'''

FAKE_SECTION = """{% import "macros.html.j2" as kit %}
<p id="fake-answer">{{ answer }}</p>
{{ kit.text_table(["reward"], rows, "fake-table", labels=0) }}
"""

STREAM = "format: pastbench/fake-v1\ncases:\n  w_low: 0.25\n  w_high: 0.75\n"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(fake_protocol=FAKE_PROTOCOL)
    (pytester.path / "fake_section.html.j2").write_text(FAKE_SECTION)
    pytester.makeconftest("pytest_plugins = ['fake_protocol']\n")
    (pytester.path / "families" / "streams").mkdir(parents=True)
    (pytester.path / "families" / "streams" / "retail.yaml").write_text(STREAM)
    return pytester


def _summary(pytester: pytest.Pytester, run_id: str) -> dict:
    return json.loads((pytester.path / "reports" / run_id / "sequence_summary.json").read_text())


@pytest.mark.parametrize("workers", ["0", "2"])
def test_protocol_items_run_and_report(project: pytest.Pytester, workers: str) -> None:
    result = project.runpytest_subprocess(
        "families",
        "-v",
        "-n",
        workers,
        "--pastbench-run-id=r",
        "--junitxml=junit.xml",
        "-m",
        "fake",
        "--pastbench-fake-level=3",
    )
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*FAKE reward 0.25*", "*FAKE TABLE n=2 blocked=0*"])
    assert "Δ = S_on" not in result.stdout.str()  # no PAST items: no Δ table
    summary = _summary(project, "r")
    assert summary["configs"] == []
    assert summary["protocols"]["fake"] == {"n": 2, "blocked": 0, "rewards": [0.75, 0.25]}
    results = json.loads((project.path / "reports" / "r" / "protocol_results.json").read_text())
    (high, low) = results["protocols"]["fake"]
    assert (high["family"], high["episode"], high["protocol"]) == ("fake.retail", "w_high", "fake")
    assert low["metrics"] == {"reward": 0.25} and low["dataset_hash"] == summary["run"]["dataset_hash"]
    assert (low["level"], high["level"]) == (3, 3)  # its option's value, on every worker
    junit = (project.path / "junit.xml").read_text()
    assert "pastbench.metric.reward" in junit
    assert junit.count('<property name="pastbench.fake.level" value="3"') == 2  # its own item property
    # Its gate metric as a run property (protocol, config, scope, metric): no shared code for it.
    assert '<property name="pastbench.fake.fake@pastbench/recall.overall.mean_reward" value="0.5"' in junit


def test_an_infra_failure_is_an_error_with_its_reason_not_a_zero(project: pytest.Pytester) -> None:
    (project.path / "families" / "streams" / "retail.yaml").write_text(STREAM + "  w_down: boom\n")
    result = project.runpytest_subprocess("families", "--pastbench-run-id=r")
    result.stdout.fnmatch_lines(["*infra_blocked: provider down after 3 retries*"])
    assert result.parseoutcomes()["errors"] == 1
    section = _summary(project, "r")["protocols"]["fake"]
    assert section["blocked"] == 1 and sorted(section["rewards"]) == [0.25, 0.75]


def test_a_malformed_protocol_file_is_a_collection_error_naming_it(project: pytest.Pytester) -> None:
    broken = project.path / "families" / "streams" / "broken.yaml"
    broken.write_text("format: pastbench/fake-v1\ncases: 3\n")
    result = project.runpytest_subprocess("families", "--pastbench-run-id=r")
    result.stdout.fnmatch_lines(["*broken.yaml: cases: must be a mapping*"])
    assert _summary(project, "r")["protocols"]["fake"]["n"] == 2  # the other file still ran


def test_resume_skips_finished_protocol_items(project: pytest.Pytester) -> None:
    first = project.runpytest_subprocess("families", "--pastbench-run-id=r")
    assert first.ret == 0, first.stdout.str()
    again = project.runpytest_subprocess("families", "--pastbench-resume=r")
    assert again.ret == 0, again.stdout.str()
    again.stdout.fnmatch_lines(["*2 deselected*"])
    assert _summary(project, "r")["protocols"]["fake"]["n"] == 2
    assert json.loads((project.path / "reports" / "r" / "run.json").read_text())["fake_level"] == 1
    # The stand-in's option is a resume field: another level is another experiment, refused.
    project.makeini("[pytest]\npastbench_fake_level = 2\n")
    other = project.runpytest_subprocess("families", "--pastbench-resume=r")
    assert other.ret == pytest.ExitCode.USAGE_ERROR
    other.stderr.fnmatch_lines(["*differs from the run in --pastbench-fake-level (the run: 1, now: 2)*"])


def test_a_baseline_gate_on_a_protocol_metric_trips(project: pytest.Pytester) -> None:
    saved = project.runpytest_subprocess("families", "--pastbench-run-id=base", "--pastbench-save=good")
    assert saved.ret == 0, saved.stdout.str()
    (project.path / "families" / "streams" / "retail.yaml").write_text(STREAM.replace("0.75", "0.35"))
    gated = project.runpytest_subprocess(
        "families",
        "--pastbench-run-id=worse",
        "--pastbench-compare=good",
        "--pastbench-compare-fail=mean_reward:0.1",
    )
    # mean reward 0.5 -> 0.3: worse by 0.2, beyond the 0.1 the gate allows
    assert gated.ret == pytest.ExitCode.TESTS_FAILED, gated.stdout.str()
    gated.stdout.fnmatch_lines(
        [
            # the family file changed: one warning naming both dataset hashes, and the gate still runs
            "warning: dataset differs: current dataset_hash *, baseline *; changed families: fake.retail",
            # a reward that is no mean of units: the verdict, and no noise estimate to speak of
            "FAIL  fake.mean_reward dropped by 0.200 (0.500 → 0.300; limit 0.1) [fake@pastbench/recall]",
        ]
    )
    assert gated.stdout.str().count("warning: dataset differs") == 1
    kept = project.runpytest_subprocess(
        "families",
        "--pastbench-run-id=same",
        "--pastbench-compare=good",
        "--pastbench-compare-fail=mean_reward:0.3",
    )
    assert kept.ret == 0, kept.stdout.str()


def test_two_shards_merge_into_the_unsharded_summary(project: pytest.Pytester) -> None:
    from pytest_pastbench.protocols.standalone import standalone_registry
    from pytest_pastbench.results.merge import merge_runs

    for k in (1, 2):
        shard = project.runpytest_subprocess(
            "families", f"--pastbench-shard={k}/2", f"--pastbench-run-id=s{k}"
        )
        assert shard.ret in (0, pytest.ExitCode.NO_TESTS_COLLECTED), shard.stdout.str()
    whole = project.runpytest_subprocess("families", "--pastbench-run-id=whole")
    assert whole.ret == 0, whole.stdout.str()
    project.syspathinsert()  # the stand-in protocol, as `pastbench merge -p fake_protocol` imports it
    reports = project.path / "reports"
    merge_runs([reports / "s1", reports / "s2"], reports / "merged", standalone_registry(["fake_protocol"]))
    assert _summary(project, "merged")["protocols"] == _summary(project, "whole")["protocols"]
    results = json.loads((reports / "merged" / "protocol_results.json").read_text())
    assert sorted(r["episode"] for r in results["protocols"]["fake"]) == ["w_high", "w_low"]


def test_the_report_page_shows_the_protocol_section_from_its_own_template(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess(
        "families", "--pastbench-run-id=r", "-o", "pastbench_no_report=false"
    )
    assert result.ret == 0, result.stdout.str()
    page = (project.path / "reports" / "r" / "report.html").read_text()
    start = page.index('<section class="protocol" id="protocol-fake"><h2>Fake: the stand-in protocol</h2>')
    section = page[start : page.index("</section>", start)]
    # Its template, its values (escaped: no script of a model's answer runs), the shared parts.
    assert '<p id="fake-answer">&lt;script&gt;alert(1)&lt;/script&gt; &amp; done</p>' in section
    assert "<script>alert" not in page
    assert '<table id="fake-table">' in section and section.count('<td class="num">0.') == 2
    assert 'id="items-table-fake"' in section and 'id="trace-view-fake"' in section
    assert '<a href="#protocol-fake">Fake</a>' in page
    # Its figure: drawn into plots/ and shown in its section under its caption.
    assert (project.path / "reports" / "r" / "plots" / "fake_rewards.png").stat().st_size > 0
    assert "<code>fake_rewards.png</code> Reward per case of the stand-in</figcaption>" in section


def test_its_option_has_a_help_section_an_ini_key_and_the_one_validation(project: pytest.Pytester) -> None:
    text = project.runpytest_subprocess("--help").stdout.str()
    section = text[
        text.index("pastbench: fake protocol (the stand-in):") : text.index("[pytest] configuration")
    ]
    assert "--pastbench-fake-level=N" in section and "how hard the cases are (default 1)" in section
    assert "pastbench_fake_level (int)" in text
    bad = project.runpytest_subprocess("families", "--pastbench-fake-level=0")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["ERROR: --pastbench-fake-level=0: must be at least 1"])
