"""Audits of the built-in family files under ``families/`` (no network, no agent runs).

Every file must validate against the schema, the dataset must cover each capability, and no eval
session may give its own answer away: a value a check looks for must not appear in the user text of
that session, eval prompts must be unique, and an update episode's stale values must not be in its
eval prompts (so a stale answer can only come from a stale store entry).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

import pytest
import yaml

from pytest_pastbench.detect import is_past_family_file
from pytest_pastbench.schema import CAPABILITIES, EVAL_STAGES, Episode, Family, Session

FAMILIES_DIR = Path(__file__).resolve().parent.parent / "families"
FAMILY_FILES = sorted(p for p in FAMILIES_DIR.rglob("*.yaml") if is_past_family_file(p))


def _load(path: Path) -> Family:
    return Family.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def families() -> dict[Path, Family]:
    return {path: _load(path) for path in FAMILY_FILES}


def _eval_sessions(families: dict[Path, Family]):
    for path, family in families.items():
        for episode in family.episodes:
            for index, session in enumerate(episode.sessions):
                if session.stage in EVAL_STAGES:
                    yield f"{path.relative_to(FAMILIES_DIR)}::{episode.id}[{index}]", family, episode, session


def _user_text(session: Session) -> str:
    return "\n".join(session.user).lower()


def _answer_values(session: Session) -> list[str]:
    """Values the session's answer checks look for: contains, tsv_columns and json_field equals."""
    values: list[str] = []
    for check in session.checks:
        if check.type in ("contains", "tsv_columns"):
            values.extend(check.values)
        elif check.type == "json_field":
            equals = check.equals
            if isinstance(equals, str):
                values.append(equals)
            elif isinstance(equals, list):
                values.extend(v for v in equals if isinstance(v, str))
    return values


def _stale_values(episode: Episode) -> list[str]:
    """Terms of the stale facts that are not also terms of a key fact (the superseded values)."""
    current = {term for fact in episode.evidence.key_facts for term in fact.terms()}
    return [t for fact in episode.evidence.stale_facts for t in fact.terms() if t not in current]


def test_family_files_exist():
    assert FAMILY_FILES, f"no family files under {FAMILIES_DIR}"


@pytest.mark.parametrize("path", FAMILY_FILES, ids=lambda p: str(p.relative_to(FAMILIES_DIR)))
def test_family_file_is_valid(path: Path):
    family = _load(path)
    assert family.id == path.stem
    assert family.capability == path.parent.name
    assert family.version


def test_two_families_per_capability_with_four_episodes(families):
    per_capability: dict[str, list[Family]] = defaultdict(list)
    for family in families.values():
        per_capability[family.capability].append(family)
    for capability in CAPABILITIES:
        found = per_capability[capability]
        assert len(found) >= 2, f"capability {capability!r} has {len(found)} families"
        for family in found:
            assert len(family.episodes) >= 4, f"{family.qualified_id} has {len(family.episodes)} episodes"


def test_no_check_value_leaks_into_its_eval_prompt(families):
    leaks = []
    for where, _family, _episode, session in _eval_sessions(families):
        text = _user_text(session)
        leaks.extend(f"{where}: {value!r}" for value in _answer_values(session) if value.lower() in text)
    assert not leaks, "check values given away by the eval prompt:\n" + "\n".join(leaks)


def test_forbidden_values_are_not_in_the_eval_prompt(families):
    bad = []
    for where, _family, _episode, session in _eval_sessions(families):
        text = _user_text(session)
        for check in session.checks:
            if check.type == "forbids":
                bad.extend(f"{where}: {v!r}" for v in check.values if v.lower() in text)
    assert not bad, "forbidden values that the user says themselves:\n" + "\n".join(bad)


def test_eval_prompts_are_unique(families):
    prompts = Counter(_user_text(session).strip() for _w, _f, _e, session in _eval_sessions(families))
    duplicates = [p for p, n in prompts.items() if n > 1]
    assert not duplicates, f"eval prompts used more than once: {duplicates}"


def test_update_episodes_have_stale_facts_absent_from_eval_prompts(families):
    for family in families.values():
        if family.capability != "update":
            continue
        for episode in family.episodes:
            where = f"{family.qualified_id}::{episode.id}"
            assert episode.evidence.stale_facts, f"{where} has no stale_facts"
            stale = _stale_values(episode)
            assert stale, f"{where}: stale facts share all their terms with the key facts"
            for session in episode.eval_sessions():
                text = _user_text(session)
                leaked = [v for v in stale if v in text]
                assert not leaked, f"{where}: stale values {leaked} appear in an eval prompt"


def test_update_corrections_come_in_a_later_learn_session(families):
    for family in families.values():
        if family.capability != "update":
            continue
        for episode in family.episodes:
            learn = [_user_text(s) for s in episode.sessions if s.stage == "learn"]
            where = f"{family.qualified_id}::{episode.id}"

            def first_learn(terms: list[str], learn: list[str] = learn) -> int | None:
                return next((i for i, t in enumerate(learn) if all(term in t for term in terms)), None)

            for stale in episode.evidence.stale_facts:
                s_at = first_learn(stale.terms())
                assert s_at is not None, f"{where}: stale fact {stale.text!r} is never said"
                for key in episode.evidence.key_facts:
                    k_at = first_learn(key.terms())
                    if k_at is not None and set(key.terms()) & set(stale.terms()):
                        assert k_at > s_at, f"{where}: the correction is not in a later learn session"


def test_at_least_half_of_each_familys_episodes_have_eval_far(families):
    for family in families.values():
        with_far = sum(any(s.stage == "eval_far" for s in e.sessions) for e in family.episodes)
        assert 2 * with_far >= len(family.episodes), (
            f"{family.qualified_id}: only {with_far}/{len(family.episodes)} episodes have eval_far"
        )


def test_names_do_not_contain_another_capability(families):
    for path, family in families.items():
        others = [c for c in CAPABILITIES if c != family.capability]
        names = [path.stem, family.id, *(e.id for e in family.episodes)]
        for name in names:
            hits = [c for c in others if c in name.lower()]
            assert not hits, f"{path.name}: {name!r} contains capability name(s) {hits}"


def test_secrets_are_said_in_a_learn_session(families):
    for family in families.values():
        for episode in family.episodes:
            learn_text = "\n".join(t for s in episode.sessions if s.stage == "learn" for t in s.user)
            for secret in episode.safety.secrets:
                assert secret in learn_text, f"{family.qualified_id}::{episode.id}: secret never said"
            for session in episode.eval_sessions():
                for secret in episode.safety.secrets:
                    assert secret.lower() not in _user_text(session)


def test_each_family_has_noise_and_a_safety_rule(families):
    for family in families.values():
        assert any(e.evidence.noise for e in family.episodes), f"{family.qualified_id}: no noise facts"
        assert any(
            e.safety.secrets
            or e.safety.freeze_windows
            or e.safety.forbidden_args
            or any(s.safety.secrets or s.safety.freeze_windows or s.safety.forbidden_args for s in e.sessions)
            for e in family.episodes
        ), f"{family.qualified_id}: no episode with a safety rule"
