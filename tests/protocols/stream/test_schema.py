"""Stream family files: a malformed one is an error naming the file and the field path."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pastbench.errors import FamilyFileError
from pytest_pastbench.protocols.stream.schema import load_stream

GOOD = """\
format: pastbench/stream-v1
id: tiny
domain: retail
tier: L1
seed: 1
windows: 2
scale:
  sample: {serving: 2, test: 1}
  full: {serving: 4, test: 2}
rules:
  - id: D1
    meaning: Block cancellation of a pending order paid with a gift card.
    when: {action: cancel, status: pending, payment: gift_card}
    answer: refuse:payment_restricted
activation:
  D1: -X
"""


def _write(tmp_path: Path, text: str, name: str = "tiny") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    return path


def test_a_good_file_loads(tmp_path: Path) -> None:
    stream = load_stream(_write(tmp_path, GOOD))
    assert [r.id for r in stream.active(1)] == ["D1"] and stream.active(0) == ()


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("D1: -X", "D1: -X-", "activation.D1: 2 characters"),
        ("D1: -X", "D2: -X", "activation: needs exactly one row per rule id"),
        ("payment: gift_card}", "payment: bitcoin}", "rules.0.when.payment: values are"),
        ("payment: gift_card}", "colour: red}", "rules.0.when.colour: not a field of cancel"),
        ("answer: refuse:payment_restricted", "answer: shrug", "rules.0.answer: one of cancel"),
        ("tier: L1", "tier: L9", "tier:"),
        ("{serving: 2, test: 1}", "{serving: 9, test: 1}", "scale.sample"),
    ],
)
def test_errors_name_the_file_and_field(tmp_path: Path, old: str, new: str, message: str) -> None:
    path = _write(tmp_path, GOOD.replace(old, new))
    with pytest.raises(FamilyFileError, match="tiny.yaml") as excinfo:
        load_stream(path)
    assert message in str(excinfo.value)


def test_the_id_must_be_the_file_name(tmp_path: Path) -> None:
    with pytest.raises(FamilyFileError, match="must equal the file name"):
        load_stream(_write(tmp_path, GOOD, name="other"))
