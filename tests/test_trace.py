import pytest

from pytest_pastbench.core.trace import REDACTED, TraceRecorder, redact, secret_values


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
