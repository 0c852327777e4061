"""The dataset audit (issue #3): shape, leaks, evidence order, satisfiable checks, no free scores.

Run by ``pastbench validate`` and by ``tests/protocols/past/dataset/test_audit.py``. The score
rules run the offline reference policies in-process (the real agent loop, tools, store and
scoring; no pytest, no litellm), so the whole audit takes seconds:

- **oracle**: each eval session is run with ``pastbench/curator`` on ``hermes-plus`` (all five
  mechanisms, so it reads what it is given) and a fresh store that holds
  exactly the episode's key facts, one memory entry each ("key facts given in the eval context").
  Every eval session must reach s_e ≥ 0.95: the checks are satisfiable from the key facts. A
  session below names the checks the oracle failed (file, episode, session, check).
- **empty**: an empty answer, or one that did no work ("I could not find it."), with no tool call
  (the session's world unchanged) scores 0 in every eval session: no check earns credit for doing
  nothing (issue #15), ``present`` checks included.
- **blind**: ``pastbench/blind`` (never reads the store) on both arms. Per capability it passes at
  most ``BLIND_MAX`` of the ``store`` credit checks (the store's work is not doable without the
  store), and its Δ = S_on − S_off stays within ``BLIND_DELTA_MAX`` (a store it never reads cannot
  move its score; issue 29). Its off-arm score itself may be above 0: that is the present work.

Issue 29 (the control arm measures competence) adds the rules of the two evidence kinds, with no
agent run:

- **present_source**: every ``present`` check's value occurs in that session's own user turns or in
  the world the session sees (the episode seed plus the session's records): its credit comes from
  the episode itself, never from other episodes.
- **leak**: a ``store`` check's value in the eval's own prompt, or in the records the session adds
  to the world, is a leak (the control arm could read it). One in the episode's seed world (shared
  with the learn sessions, often one value among several there) is a note, not a failure.
- **present_share**: the share of eval sessions with a ``present`` credit check, overall and per
  capability, is reported; the built-in set needs ≥ ``PRESENT_SHARE_MIN`` overall and some in every
  capability. A user's own set written without ``present`` checks (S_off = 0 by design) still
  validates, with a note.

Imports inside functions load the agent loop, the engine, the scoring and tabulate only for the
rules and tables that use them.
"""

from __future__ import annotations

import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_pastbench.core.text import normalise
from pytest_pastbench.errors import FamilyFileError
from pytest_pastbench.models.direct import PolicyModel
from pytest_pastbench.protocols.past.family_files import load_family

from ...shared.matching import asserts_all
from ...shared.schema import (
    AnyOfCheck,
    Check,
    ContainsCheck,
    RubricCheck,
    ToolCalledCheck,
    ValueCheck,
    WorldStateCheck,
    answer_values,
    is_guard,
)
from ..schema import CAPABILITIES, EVAL_STAGES, Episode, Fact, Family, Session

# capability -> (families, episodes) of the PAST-Bench dataset
EXPECTED_SHAPE = {"memory": (5, 41), "procedural": (9, 72), "gathering": (6, 48), "update": (8, 59)}
ORACLE_MIN = 0.95
BLIND_MAX = 0.3  # most of the store credit checks the blind policy may pass
BLIND_DELTA_MAX = 0.02  # |S_on - S_off| of a policy that never reads the store
PRESENT_SHARE_MIN = 1 / 3  # of the built-in eval sessions carrying present credit (issue 29)
ORACLE_POLICY = "curator"


@dataclass(frozen=True)
class Finding:
    where: str  # file, or file::episode, or file::episode[session index]
    rule: str
    message: str

    note: bool = False  # reported, never a failure

    def __str__(self) -> str:
        return f"{'NOTE' if self.note else 'FAIL'} [{self.rule}] {self.where}: {self.message}"


@dataclass
class AuditReport:
    families: dict[Path, Family] = field(default_factory=dict)
    # docs/design.md §8 protocol files found beside the PAST families: path -> what their validator says.
    protocol_families: dict[Path, str] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    notes: list[Finding] = field(default_factory=list)  # worth reading, never a failure
    blind_means: dict[str, float] = field(default_factory=dict)  # on arm
    blind_off_means: dict[str, float] = field(default_factory=dict)
    # share of the store credit checks the blind policy passed on the on arm, per capability
    blind_store_credit: dict[str, float] = field(default_factory=dict)
    # share of eval sessions with a present credit check, per capability and "total"
    present_share: dict[str, float] = field(default_factory=dict)
    oracle_min: float | None = None
    empty_max: float | None = None
    # What the shortcut audit measured (leave-one-out means, distinct value sets, side effects).
    shortcuts: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.findings

    def counts(self) -> dict[str, tuple[int, int]]:
        found: dict[str, list[int]] = {c: [0, 0] for c in CAPABILITIES}
        for family in self.families.values():
            found[family.capability][0] += 1
            found[family.capability][1] += len(family.episodes)
        return {c: (f, e) for c, (f, e) in found.items()}


def family_paths(root: Path) -> list[Path]:
    from pytest_pastbench.protocols.detect import FAMILY_SUFFIXES

    if root.is_dir():
        return sorted(p for p in root.rglob("*") if p.suffix in FAMILY_SUFFIXES)
    return [root]


def describe_protocol_family(path: Path, registry: Any) -> str | None:
    """A §8 protocol's file, validated by its module's optional ``describe(path)`` (raises
    ``FamilyFileError``); None for a PAST file or a file of no protocol in ``registry``
    (``load_family`` says)."""
    from pytest_pastbench.protocols.detect import FORMAT_TAG, family_format

    tag = family_format(path)
    protocol = registry.by_tag(tag) if tag is not None and tag != FORMAT_TAG else None
    return None if protocol is None else str(protocol.describe(path))


def audit(
    paths: list[Path], registry: Any, run_policies: bool = True, check_counts: bool = True
) -> AuditReport:
    """Every rule over the family files under ``paths`` (files or folders); ``registry``: the
    protocols whose files are described, not audited as PAST's."""
    report = AuditReport()
    for path in (p for root in paths for p in family_paths(root)):
        try:
            described = describe_protocol_family(path, registry)
            if described is not None:
                report.protocol_families[path] = described
                continue
            family, _ = load_family(path)
        except FamilyFileError as exc:
            report.findings.append(Finding(str(path), "schema", str(exc).removeprefix(f"{path}: ")))
        else:
            report.families[path] = family
    if report.protocol_families and not report.families and not report.findings:
        return report  # only docs/design.md §8 protocol files: the PAST dataset rules do not apply
    if check_counts:
        report.findings += check_shape(report)
    for path, family in report.families.items():
        report.findings += check_family(path, family)
        for episode in family.episodes:
            where = f"{path}::{episode.id}"
            for finding in [*check_leaks(where, episode), *check_present_sources(where, episode)]:
                (report.notes if finding.note else report.findings).append(finding)
            report.findings += check_evidence_order(where, family, episode)
    found = check_present_share(report, built_in=check_counts)
    report.findings += [f for f in found if not f.note]
    report.notes += [f for f in found if f.note]
    report.findings += check_unique_prompts(report.families)
    report.findings += check_coverage(report.families)
    report.findings += check_shortcuts(report)
    if run_policies:
        scored = check_scores(report)
        report.findings += [f for f in scored if not f.note]
        report.notes += [f for f in scored if f.note]
    return report


# -- shape ------------------------------------------------------------------------------------------


def check_shape(report: AuditReport) -> list[Finding]:
    findings = []
    counts = report.counts()
    for capability, (families, episodes) in EXPECTED_SHAPE.items():
        if counts[capability] != (families, episodes):
            got = counts[capability]
            findings.append(
                Finding(
                    capability,
                    "counts",
                    f"{got[0]} families / {got[1]} episodes; expected {families} / {episodes}",
                )
            )
    return findings


def check_coverage(families: dict[Path, Family]) -> list[Finding]:
    """eval_far in at least half the episodes, noise in at least a quarter, stale facts in update."""
    findings = []
    episodes = [(p, f, e) for p, f in families.items() for e in f.episodes]
    if not episodes:
        return [Finding("(dataset)", "coverage", "no episodes")]
    far = sum(1 for _, _, e in episodes if any(s.stage == "eval_far" for s in e.sessions))
    noise = sum(1 for _, _, e in episodes if e.evidence.noise)
    if far * 2 < len(episodes):
        findings.append(
            Finding("(dataset)", "coverage", f"eval_far in {far} of {len(episodes)} episodes (< half)")
        )
    if noise * 4 < len(episodes):
        findings.append(
            Finding("(dataset)", "coverage", f"noise in {noise} of {len(episodes)} episodes (< 1/4)")
        )
    for path, family, episode in episodes:
        if family.capability == "update" and not episode.evidence.stale_facts:
            findings.append(
                Finding(f"{path}::{episode.id}", "stale_facts", "an update episode needs stale_facts")
            )
    return findings


def check_family(path: Path, family: Family) -> list[Finding]:
    """Per family: its folder, names, eval_far in half its episodes, noise and a safety rule somewhere."""
    findings = []
    where = str(path)
    if path.parent.name in CAPABILITIES and path.parent.name != family.capability:
        findings.append(
            Finding(where, "folder", f"a {family.capability} family in the {path.parent.name}/ folder")
        )
    others = [c for c in CAPABILITIES if c != family.capability]
    for name in [family.id, *(e.id for e in family.episodes)]:
        # `-k update` selects by name: a memory family called "..._update" would be selected too.
        hits = [c for c in others if c in name.lower()]
        if hits:
            findings.append(Finding(where, "names", f"{name!r} contains another capability's name {hits}"))
    episodes = family.episodes
    far = sum(1 for e in episodes if any(s.stage == "eval_far" for s in e.sessions))
    if far * 2 < len(episodes):
        findings.append(Finding(where, "coverage", f"eval_far in {far} of {len(episodes)} episodes (< half)"))
    if not any(e.evidence.noise for e in episodes):
        findings.append(Finding(where, "coverage", "no episode has noise facts"))
    if not any(_has_safety_rule(e) for e in episodes):
        findings.append(Finding(where, "coverage", "no episode has a safety rule"))
    return findings


def _has_safety_rule(episode: Episode) -> bool:
    rules = [episode.safety, *(s.safety for s in episode.sessions)]
    return any(r.secrets or r.freeze_windows or r.forbidden_args or r.forbidden_tools for r in rules)


# -- leaks ------------------------------------------------------------------------------------------


def asserts(fact: Fact, text: str) -> bool:
    """The text states the fact: its whole text, or every one of its match terms (matched as
    ``value`` checks match: normalised, token-bounded; CHECKS.md)."""
    return asserts_all(text, [fact.text]) or asserts_all(text, fact.terms())


def session_text(session: Session) -> str:
    return normalise("\n".join(session.user))


def check_leaks(where: str, episode: Episode) -> list[Finding]:
    findings = []
    facts = [*episode.evidence.key_facts, *episode.evidence.stale_facts]
    learn_text = "\n".join(t for s in episode.sessions if s.stage == "learn" for t in s.user)
    for secret in episode.safety.secrets:
        if secret not in learn_text:
            findings.append(Finding(where, "secrets", "a secret that no learn session says tests nothing"))
    for index, session in enumerate(episode.sessions):
        if session.stage == "learn":
            continue
        text = session_text(session)
        spot = f"{where}[{index}]"
        for fact in episode.evidence.key_facts:
            if asserts(fact, text):
                findings.append(
                    Finding(spot, "leak", f"the {session.stage} text states key fact {fact.text!r}")
                )
        if session.stage not in EVAL_STAGES:
            continue
        if any(secret.lower() in text for secret in episode.safety.secrets):
            findings.append(Finding(spot, "secrets", "the eval text says a secret"))
        for fact in facts:
            stale_terms = [
                t for t in fact.terms() if fact in episode.evidence.stale_facts and _only_stale(t, episode)
            ]
            for term in stale_terms:
                if normalise(term) in text:
                    findings.append(Finding(spot, "leak", f"the eval text names the stale value {term!r}"))
        own_world = world_text(session.world.model_dump())
        seed_world = world_text(episode.world.model_dump(exclude={"now"}))
        for check in session.checks:
            if check.evidence == "present":
                continue  # its value is meant to be there (check_present_sources)
            for v in answer_values(check):
                if asserts_all(text, [v]):
                    findings.append(
                        Finding(spot, "leak", f"the eval text contains the {check.type} value {v!r}")
                    )
                elif asserts_all(own_world, [v]):
                    message = f"the session's own world records contain the store {check.type} value {v!r}"
                    findings.append(Finding(spot, "leak", message))
                elif asserts_all(seed_world, [v]):
                    message = (
                        f"the episode's seed world contains the store {check.type} value {v!r}: check that "
                        "the store, not the world, is what tells it apart"
                    )
                    findings.append(Finding(spot, "store_in_world", message, note=True))
    return findings


def world_text(records: dict[str, Any]) -> str:
    """Every value of a world's records (ids, titles, bodies, fields), normalised, one per line."""
    parts: list[str] = []
    for service in sorted(records):
        for record in records[service] or []:
            for value in record.values():
                parts += [str(v) for v in value] if isinstance(value, list) else [str(value)]
    return normalise("\n".join(parts))


def present_text(episode: Episode, session: Session) -> str:
    """What a session shows an agent without a store: its user turns and the world it sees."""
    world = episode.session_world(session).model_dump(exclude={"now"})
    return session_text(session) + "\n" + world_text(world)


def supported_by(check: Check, text: str) -> bool:
    """Can the check be earned from ``text`` alone: a value check's value (one of its forms), every
    contains value, one alternative of any_of, every rubric fallback, every field a tool or
    world-state check needs. Checks with no value to look for (regex, JSON, TSV) are not judged."""
    if isinstance(check, ValueCheck):
        return any(asserts_all(text, [form]) for form in check.forms())
    if isinstance(check, ContainsCheck):
        return asserts_all(text, list(check.values))
    if isinstance(check, AnyOfCheck):
        return any(supported_by(c, text) for c in check.checks if not is_guard(c))
    if isinstance(check, RubricCheck):
        return all(supported_by(c, text) for c in check.fallback if not is_guard(c))
    if isinstance(check, ToolCalledCheck | WorldStateCheck):
        fields = check.args if isinstance(check, ToolCalledCheck) else check.match
        return asserts_all(text, [str(v) for v in fields.values() if isinstance(v, str | int | float)])
    return True


def check_present_sources(where: str, episode: Episode) -> list[Finding]:
    """Every present credit check can be earned from its own session's prompt and world."""
    findings = []
    for index, session in enumerate(episode.sessions):
        if session.stage not in EVAL_STAGES:
            continue
        text = present_text(episode, session)
        for n, check in enumerate(session.checks):
            if check.evidence == "present" and not is_guard(check) and not supported_by(check, text):
                message = (
                    f"check {n} ({check.type}) is marked present, but its value is neither in this "
                    "session's user turns nor in the world it sees (episode seed + session world)"
                )
                findings.append(Finding(f"{where}[{index}]", "present_source", message))
    return findings


def has_present_credit(session: Session) -> bool:
    return any(c.evidence == "present" and not is_guard(c) for c in session.checks)


def present_shares(families: dict[Path, Family]) -> dict[str, float]:
    """Share of eval sessions with a present credit check, per capability present and "total"."""
    flags: dict[str, list[bool]] = defaultdict(list)
    for family in families.values():
        for episode in family.episodes:
            for session in episode.eval_sessions():
                flags[family.capability].append(has_present_credit(session))
                flags["total"].append(has_present_credit(session))
    return {k: sum(v) / len(v) for k, v in sorted(flags.items()) if v}


def check_present_share(report: AuditReport, built_in: bool) -> list[Finding]:
    """The built-in set: ≥ PRESENT_SHARE_MIN overall and > 0 in every capability. A user's set:
    a note when nothing is present (its control arm scores 0 by design)."""
    report.present_share = present_shares(report.families)
    total = report.present_share.get("total")
    if total is None:
        return []
    if not built_in:
        if total == 0:
            message = (
                "no eval session has a present credit check: the control arm scores 0 by design "
                "(S_off = 0, Δ = S_on); mark checks doable without the store `evidence: present`"
            )
            return [Finding("(dataset)", "present_share", message, note=True)]
        return []
    findings = []
    if total < PRESENT_SHARE_MIN:
        message = f"{total:.0%} of the eval sessions have present credit (< {PRESENT_SHARE_MIN:.0%})"
        findings.append(Finding("(dataset)", "present_share", message))
    for capability in CAPABILITIES:
        if report.present_share.get(capability, 0.0) == 0.0:
            message = "no eval session has present credit: the control arm cannot measure competence here"
            findings.append(Finding(capability, "present_share", message))
    return findings


def _only_stale(term: str, episode: Episode) -> bool:
    return all(term not in fact.terms() for fact in episode.evidence.key_facts)


def check_unique_prompts(families: dict[Path, Family]) -> list[Finding]:
    seen: dict[str, str] = {}
    findings = []
    for path, family in families.items():
        for episode in family.episodes:
            for index, session in enumerate(episode.sessions):
                if session.stage not in EVAL_STAGES:
                    continue
                where = f"{path}::{episode.id}[{index}]"
                text = session_text(session)
                if text in seen:
                    findings.append(Finding(where, "unique_prompts", f"same eval prompt as {seen[text]}"))
                seen.setdefault(text, where)
    return findings


def check_shortcuts(report: AuditReport) -> list[Finding]:
    """The shortcut rules of ``shortcuts.py`` (scored answers without the store; no agent runs)."""
    from .shortcuts import audit_shortcuts

    found, report.shortcuts = audit_shortcuts(report.families)
    return [Finding(f.where, f.rule, f.message) for f in found]


# -- evidence order -------------------------------------------------------------------------------


def first_learn(fact: Fact, episode: Episode) -> int | None:
    """Index of the first learn session whose text states the fact."""
    for index, session in enumerate(episode.sessions):
        if session.stage == "learn" and asserts(fact, session_text(session)):
            return index
    return None


def check_evidence_order(where: str, family: Family, episode: Episode) -> list[Finding]:
    findings = []
    taught = {id(f): first_learn(f, episode) for f in episode.evidence.key_facts}
    for fact in episode.evidence.key_facts:
        if taught[id(fact)] is None:
            findings.append(Finding(where, "key_fact_taught", f"no learn session states {fact.text!r}"))
    corrections = [i for i in taught.values() if i is not None]
    for fact in episode.evidence.stale_facts:
        stated = first_learn(fact, episode)
        if stated is None:
            findings.append(
                Finding(where, "stale_order", f"no learn session states the stale fact {fact.text!r}")
            )
        elif not corrections or stated >= max(corrections):
            findings.append(
                Finding(where, "stale_order", f"stale fact {fact.text!r} is not stated before its correction")
            )
    return findings


# -- scores ---------------------------------------------------------------------------------------


def empty_scores(episode: Episode) -> list[tuple[int, float]]:
    """The check credit c_e of every eval session for an answer that did no work and called no
    tool: the higher of an empty answer and "I could not find it." (``NO_WORK_ANSWER``). s_e is 0
    for such answers by rule (scoring.combine), so the audit reads c: a check they pass is free
    credit for any terse answer too."""
    from .shortcuts import NO_WORK_ANSWER, answer_scores

    empty, no_work = answer_scores(episode, "", part="c"), answer_scores(episode, NO_WORK_ANSWER, part="c")
    return [(i, max(a, b)) for (i, a), (_, b) in zip(empty, no_work, strict=True)]


def oracle_scores(episode: Episode, root: Path) -> list[tuple[int, float, list[tuple[str, str]]]]:
    """s_e of every eval session run from a store holding exactly the key facts, with the
    checks it failed as (evidence, "check n (type): detail"); a safety violation counts as store."""
    from pytest_pastbench.agents.base import HermesAgent
    from pytest_pastbench.core.store import Store
    from pytest_pastbench.protocols.past.world import World

    from ..engine import run_agent_session
    from ..scoring import score_session, session_safety

    # All five mechanisms: the oracle must read the store it is given (E4 sends back an answer
    # drafted without a read), so a miss measures the checks, not the base agent's defects.
    model, agent, results = PolicyModel(ORACLE_POLICY), HermesAgent(mechanisms=["all"]), []
    for index, session in enumerate(episode.sessions):
        if session.stage not in EVAL_STAGES:
            continue
        store = Store(root / f"oracle-{index}")
        for fact in episode.evidence.key_facts:
            store.write_memory(fact.text)
        run = run_agent_session(
            agent,
            model,
            store,
            World(episode.session_world(session)),
            list(session.user),
            index=index,
            stage=session.stage,
        )
        score = score_session(session, run, session_safety(episode, session))
        failed = [
            (check.evidence, f"check {n} ({c.type}): {c.detail}")
            for n, (check, c) in enumerate(zip(session.checks, score.checks, strict=True))
            if c.passed is False
        ]
        results.append((index, score.s, failed + [("store", v) for v in score.violations]))
    return results


def policy_score(family: Family, episode: Episode, policy: str, arm: str, root: Path) -> float:
    """The check credit of a reference policy on one arm (mean c_e over the eval sessions), through
    the protocol runner: c, not s_e, since s_e's 0.2 recovery term says nothing about the data."""
    record = policy_record(family, episode, policy, arm, root)
    return sum(s.c for s in record.sessions) / len(record.sessions)


def policy_record(family: Family, episode: Episode, policy: str, arm: str, root: Path) -> Any:
    """The item record of a reference policy on one arm, through the protocol runner."""
    from pytest_pastbench.agents.base import HermesAgent

    from ..engine import ItemSpec, run

    spec = ItemSpec(
        nodeid=f"{family.qualified_id}::{episode.id}[{arm}]",
        family=family,
        episode=episode,
        arm=arm,
        trial=0,
        model=f"pastbench/{policy}",
        config_label="audit",
        dataset_hash="audit",
    )
    record = run(spec, HermesAgent(), PolicyModel(policy), root).record
    assert record.score is not None  # engine.run always scores; blocked items come from the plugin only
    return record


def store_credit(episode: Episode, record: Any) -> tuple[float, float]:
    """(weight passed, weight in all) of the store credit checks over the record's eval sessions."""
    passed = total = 0.0
    for score in record.sessions:
        session = episode.sessions[score.index]
        for check, result in zip(session.checks, score.checks, strict=False):
            if check.evidence == "store" and not is_guard(check):
                total += check.weight
                passed += check.weight if result.passed else 0.0
    return passed, total


def check_scores(report: AuditReport) -> list[Finding]:
    findings = []
    blind: dict[str, list[float]] = defaultdict(list)
    blind_off: dict[str, list[float]] = defaultdict(list)
    credit: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    oracle_all: list[float] = []
    empty_all: list[float] = []
    with tempfile.TemporaryDirectory(prefix="pastbench-audit-") as tmp:
        root = Path(tmp)
        for n, (path, family) in enumerate(report.families.items()):
            for m, episode in enumerate(family.episodes):
                where = f"{path}::{episode.id}"
                for index, s, failed in oracle_scores(episode, root / f"{n}-{m}"):
                    oracle_all.append(s)
                    if s >= ORACLE_MIN:
                        continue
                    store = [text for evidence, text in failed if evidence == "store"]
                    if store or not failed:
                        why = "; ".join(store) or "no check failed"
                        message = (
                            f"s_e = {s:.2f} < {ORACLE_MIN} with the key facts given: the key facts "
                            f"cannot satisfy {why}"
                        )
                        findings.append(Finding(f"{where}[{index}]", "oracle", message))
                    else:
                        # The key facts did their part; the present work (from this session's
                        # prompt and world) is the agent's competence, which the offline reference
                        # policy only partly has: shown, counted, not a fault of the data.
                        why = "; ".join(text for _, text in failed)
                        message = f"s_e = {s:.2f}: the offline reference missed present work: {why}"
                        findings.append(Finding(f"{where}[{index}]", "oracle_present", message, note=True))
                for index, s in empty_scores(episode):
                    empty_all.append(s)
                    if s > 0:
                        findings.append(
                            Finding(f"{where}[{index}]", "empty", f"an empty answer earns c_e = {s:.2f} > 0")
                        )
                record = policy_record(family, episode, "blind", "on", root / f"{n}-{m}-blind")
                blind[family.capability].append(sum(s.c for s in record.sessions) / len(record.sessions))
                passed, total = store_credit(episode, record)
                credit[family.capability][0] += passed
                credit[family.capability][1] += total
                blind_off[family.capability].append(
                    policy_score(family, episode, "blind", "off", root / f"{n}-{m}-blind-off")
                )
    report.blind_means = {c: sum(v) / len(v) for c, v in sorted(blind.items())}
    report.blind_off_means = {c: sum(v) / len(v) for c, v in sorted(blind_off.items())}
    report.blind_store_credit = {c: p / t for c, (p, t) in sorted(credit.items()) if t}
    report.oracle_min = min(oracle_all) if oracle_all else None
    report.empty_max = max(empty_all) if empty_all else None
    for capability, share in report.blind_store_credit.items():
        if share > BLIND_MAX:
            message = (
                f"pastbench/blind passes {share:.0%} of the store credit checks (> {BLIND_MAX:.0%}): "
                "solvable without the store"
            )
            findings.append(Finding(capability, "blind", message))
    for capability, on in report.blind_means.items():
        delta = on - report.blind_off_means[capability]
        if abs(delta) > BLIND_DELTA_MAX:
            message = (
                f"pastbench/blind Δ = {delta:+.2f} (|Δ| > {BLIND_DELTA_MAX}): a store it never reads "
                "moved its score"
            )
            findings.append(Finding(capability, "blind_delta", message))
    return findings


def counts_table(report: AuditReport, with_expected: bool = True) -> str:
    """Families and episodes per capability; the built-in shape beside them unless the set is the
    user's own (``validate --any-shape``), where that column would only mislead. Then the blind
    policy's on-arm mean and Δ, and the share of eval sessions with present credit (issue 29)."""
    from tabulate import tabulate

    from pytest_pastbench.results.render.table import format_number

    def delta(capability: str) -> str | None:
        on, off = report.blind_means.get(capability), report.blind_off_means.get(capability)
        return None if on is None or off is None else f"{on - off:+.2f}"

    def share(key: str) -> str | None:
        value = report.present_share.get(key)
        return None if value is None else f"{value:.0%}"

    rows: list[list[Any]] = []
    for capability in CAPABILITIES:
        families, episodes = report.counts()[capability]
        expected = EXPECTED_SHAPE[capability]
        rows.append(
            [
                capability,
                families,
                episodes,
                f"{expected[0]} / {expected[1]}",
                format_number(report.blind_means.get(capability)),
                delta(capability),
                share(capability),
            ]
        )
    total = [sum(r[1] for r in rows), sum(r[2] for r in rows)]
    shape = [sum(EXPECTED_SHAPE[c][i] for c in CAPABILITIES) for i in (0, 1)]
    rows.append(["total", total[0], total[1], f"{shape[0]} / {shape[1]}", None, None, share("total")])
    rows = [[*r[:4], r[4] or "—", r[5] or "—", r[6] or "—"] for r in rows]
    headers = [
        "capability",
        "families",
        "episodes",
        "expected",
        "blind on-arm mean",
        "blind Δ",
        "present share",
    ]
    align = ["left", "right", "right", "left", "right", "right", "right"]
    if not with_expected:
        rows, headers = [[*r[:3], *r[4:]] for r in rows], [*headers[:3], *headers[4:]]
        align = [*align[:3], *align[4:]]
    return tabulate(rows, headers=headers, disable_numparse=True, colalign=align)


def shortcuts_table(report: AuditReport) -> str:
    """Per family: leave-one-out S_off and where the side effects fall (issue 16's audit table)."""
    from tabulate import tabulate

    from .shortcuts import LEAVE_ONE_OUT_MAX

    figures = report.shortcuts
    loo, gain = figures["leave_one_out"], figures["leave_one_out_gain"]
    rows = [
        [fid, n, f"{loo[fid]:.2f}", f"{gain[fid]:+.2f}", noise, secret, far]
        for fid, n, noise, secret, far in figures["side_effects"]
    ]
    headers = [
        "family",
        "episodes",
        "leave-one-out S_off",
        f"beyond own present (≤ {LEAVE_ONE_OUT_MAX})",
        "noise",
        "secret",
        "eval_far",
    ]
    distinct = (
        f"distinct check-value sets: {figures['distinct_value_sets']} of {figures['episodes']} episodes"
    )
    return tabulate(rows, headers=headers, disable_numparse=True) + "\n" + distinct
