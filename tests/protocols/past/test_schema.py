"""The family-file contract of issue #15 (/work/brief/CHECKS.md): value, any_of, rubric fallback."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pastbench.errors import FamilyFileError
from pytest_pastbench.protocols.past.family_files import load_family
from pytest_pastbench.protocols.past.schema import family_json_schema
from pytest_pastbench.protocols.shared.schema import AnyOfCheck, RubricCheck, ValueCheck

V3_FAMILY = """\
format: pastbench/v1
id: SM01_preference_adoption
capability: update
version: "3.0"
changelog: ["3.0: value checks with decoys"]
episodes:
  - id: ep01
    group: halvorsen
    sessions:
      - stage: learn
        user: "Halvorsen invoices go out on the 5th business day."
      - stage: learn
        user: "Correction: Halvorsen invoices now go out on the 3rd business day."
      - stage: eval_near
        user: "When do the Halvorsen invoices go out?"
        checks:
          - type: value
            value: "3rd business day"
            also: ["BD3"]
            decoys: ["7th business day"]
            superseded: ["5th business day"]
          - type: any_of
            checks:
              - {type: value, value: "Nadia Okafor"}
              - {type: value, value: "@nokafor"}
          - type: rubric
            rubric: "Says the invoices moved to the 3rd business day."
            fallback:
              - {type: value, value: "3rd business day"}
          - {type: forbids, values: ["5th business day"]}
    evidence:
      key_facts: [{text: "Halvorsen invoices: 3rd business day", match: ["halvorsen", "3rd business day"]}]
      stale_facts: [{text: "Halvorsen invoices: 5th business day", match: ["halvorsen", "5th business day"]}]
"""


def _write(tmp_path: Path, text: str, stem: str = "SM01_preference_adoption") -> Path:
    path = tmp_path / f"{stem}.yaml"
    path.write_text(text)
    return path


def test_a_v3_family_with_the_new_checks_loads(tmp_path: Path) -> None:
    family, _ = load_family(_write(tmp_path, V3_FAMILY))
    assert family.id == "SM01_preference_adoption"
    assert family.changelog == ["3.0: value checks with decoys"]
    episode = family.episodes[0]
    assert episode.group == "halvorsen"
    value, any_of, rubric, _ = episode.sessions[2].checks
    assert isinstance(value, ValueCheck) and value.forms() == ["3rd business day", "BD3"]
    assert value.decoys == ["7th business day"] and value.superseded == ["5th business day"]
    assert isinstance(any_of, AnyOfCheck) and [c.type for c in any_of.checks] == ["value", "value"]
    assert isinstance(rubric, RubricCheck) and isinstance(rubric.fallback[0], ValueCheck)


def test_any_of_needs_two_alternatives(tmp_path: Path) -> None:
    text = V3_FAMILY.replace('              - {type: value, value: "@nokafor"}\n', "")
    with pytest.raises(FamilyFileError, match="checks"):
        load_family(_write(tmp_path, text))


def test_an_eval_session_of_guards_only_is_rejected(tmp_path: Path) -> None:
    text = V3_FAMILY.split("        checks:\n")[0] + (
        '        checks:\n          - {type: forbids, values: ["5th business day"]}\n    evidence: {}\n'
    )
    with pytest.raises(FamilyFileError, match="credit check"):
        load_family(_write(tmp_path, text))


def test_a_family_id_must_start_with_a_letter(tmp_path: Path) -> None:
    text = V3_FAMILY.replace("id: SM01_preference_adoption", "id: 01_prefs")
    with pytest.raises(FamilyFileError, match="id"):
        load_family(_write(tmp_path, text, "01_prefs"))


def test_the_json_schema_knows_the_new_checks() -> None:
    schema = family_json_schema()
    assert {"ValueCheck", "AnyOfCheck"} <= set(schema["$defs"])
    assert "fallback" in schema["$defs"]["RubricCheck"]["properties"]
    assert "changelog" in schema["properties"]
    assert schema["properties"]["id"]["pattern"] == "^[A-Za-z][A-Za-z0-9_]*$"


# -- issue 29: evidence kinds and a session's own world ------------------------------------------

PRESENT_FAMILY = V3_FAMILY.replace(
    '            value: "3rd business day"\n            also: ["BD3"]',
    '            value: "3rd business day"\n            evidence: present\n            also: ["BD3"]',
).replace(
    '        user: "When do the Halvorsen invoices go out?"',
    '        user: "When do the Halvorsen invoices go out?"\n'
    "        world:\n"
    "          archive:\n"
    '            - {id: FIN-9, title: "Invoice calendar", body: "Halvorsen: 3rd business day"}\n'
    "          tickets:\n"
    '            - {id: T-900, title: "Halvorsen invoice run", queue: FIN}',
)


def test_every_check_defaults_to_store_evidence(tmp_path: Path) -> None:
    family, _ = load_family(_write(tmp_path, V3_FAMILY))
    session = family.episodes[0].sessions[2]
    assert {c.evidence for c in session.checks} == {"store"}
    assert session.world.is_empty()


def test_present_evidence_and_a_session_world_load(tmp_path: Path) -> None:
    family, _ = load_family(_write(tmp_path, PRESENT_FAMILY))
    episode = family.episodes[0]
    session = episode.sessions[2]
    assert [c.evidence for c in session.checks] == ["present", "store", "store", "store"]
    assert [d.id for d in session.world.archive] == ["FIN-9"]
    # Only that session sees the records; the learn sessions start from the bare seed.
    assert [t.id for t in episode.session_world(session).tickets] == ["T-900"]
    assert episode.session_world(episode.sessions[0]).tickets == []


def test_an_unknown_evidence_kind_names_the_field(tmp_path: Path) -> None:
    text = PRESENT_FAMILY.replace("evidence: present", "evidence: prompt")
    with pytest.raises(FamilyFileError, match="evidence"):
        load_family(_write(tmp_path, text))


def test_a_session_world_rejects_two_revisions_of_one_record(tmp_path: Path) -> None:
    text = PRESENT_FAMILY.replace(
        '            - {id: T-900, title: "Halvorsen invoice run", queue: FIN}',
        '            - {id: T-900, title: "Halvorsen invoice run", queue: FIN}\n'
        '            - {id: T-900, title: "Halvorsen invoice run, again", queue: FIN}',
    )
    with pytest.raises(FamilyFileError, match="duplicate id 'T-900'"):
        load_family(_write(tmp_path, text))


def test_the_json_schema_knows_evidence_and_session_world() -> None:
    schema = family_json_schema()
    assert schema["$defs"]["ValueCheck"]["properties"]["evidence"]["enum"] == ["store", "present"]
    assert schema["$defs"]["ContainsCheck"]["properties"]["evidence"]["default"] == "store"
    assert "world" in schema["$defs"]["Session"]["properties"]
    assert set(schema["$defs"]["SessionWorld"]["properties"]) == {"notes", "archive", "tickets", "deploys"}
