import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_pastbench.core.trace import (
    _CONTEXT_PATTERNS,
    REDACTED,
    SECRET_PATTERNS,
    TraceRecorder,
    redact,
    redact_text,
    secret_pattern,
    secret_values,
)


def test_credential_environment_values_are_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACME_API_KEY", "sk-live-abcdef123456")
    secrets = secret_values(["hunter2-pass"])
    event = {
        "content": "key sk-live-abcdef123456 and hunter2-pass",
        "nested": [{"x": "hunter2-pass"}],
        "n": 3,
    }
    assert redact(event, secrets) == {
        "content": f"key {REDACTED} and {REDACTED}",
        "nested": [{"x": REDACTED}],
        "n": 3,
    }


def test_short_or_unrelated_variables_are_not_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACME_TOKEN", "short")
    monkeypatch.setenv("ACME_HOME", "/home/acme-long-value")
    secrets = secret_values()
    assert "short" not in secrets and "/home/acme-long-value" not in secrets


def test_recorder_numbers_events() -> None:
    trace = TraceRecorder()
    trace.add("a", x=1)
    trace.add("b")
    assert trace.events == [{"seq": 0, "kind": "a", "x": 1}, {"seq": 1, "kind": "b"}]


# Pieces that each pattern fires on (and near misses), joined at random: the one-scan shortcut
# of redact_text must change exactly the texts the substitutions in turn change.
_PIECES = [
    "sk-abc123def456ghi789jkl", "risk-assessment-sk-1234567890123456789", "sk_live_ABCDEFGHIJKLMNOPQR",
    "AKIAABCDEFGHIJKLMNOP", "ghp_" + "a1" * 12, "github_pat_" + "x" * 25, "xoxb-1234567890-abc",
    "AIza" + "B" * 32, "hf_" + "c" * 31, "eyJabcdefghijk.abcdefghijkl.abcdefghijkl",
    "-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----", "Bearer abcdefghij1234567",
    "BEARER abcdefghij1234567", "authorization: token abcdefgh123", 'Authorization="basic QWxhZGRpbjpvcGVu',
    "krypton 9991 x", "KRYPTON-9991!X", "hunter2hunter2", "HUNTER2 hunter2", "word", " ", "\n", "-", "9",
]  # fmt: skip


@given(
    st.lists(st.sampled_from(_PIECES), max_size=6).map("".join),
    st.sampled_from([[], ["Krypton-9991!X"], ["hunter2hunter2", "!!weird--", "Krypton-9991!X"]]),
)
@settings(max_examples=300, deadline=None)
def test_redaction_s_one_scan_changes_what_the_substitutions_change(text: str, secrets: list[str]) -> None:
    expected = text
    for secret in secrets:
        expected = secret_pattern(secret).sub(REDACTED, expected)
    for pattern in SECRET_PATTERNS:
        expected = pattern.sub(REDACTED, expected)
    for pattern in _CONTEXT_PATTERNS:
        expected = pattern.sub(lambda m: m.group(1) + REDACTED, expected)
    assert redact_text(text, secrets) == expected
    assert redact({text: [text, (text,)]}, secrets) == {expected: [expected, [expected]]}
