"""Per-item trace: every message, tool call and result, plus store snapshots, with secrets redacted.

Redaction has two layers: known values (credential-like environment variables and the
episode's declared secrets) and patterns of well-known key formats, so a key that was never
declared anywhere (pasted into a family file, echoed by a provider error) is still caught.
A known value is matched normalised (``secret_pattern``): a model that lower-cases it or swaps
its punctuation for spaces (``Krypton-9991!X`` -> ``krypton 9991 x``) still leaks it.
"""

from __future__ import annotations

import functools
import os
import re
from typing import Any

_SECRET_ENV = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)", re.IGNORECASE)
REDACTED = "[REDACTED]"
MIN_SECRET_CHARS = 8

# Well-known credential formats. Each is anchored so it does not fire inside ordinary words
# (``risk-assessment-…`` must survive) and is strict enough to leave prose alone.
_NOT_KEY_CHAR_BEFORE = r"(?<![A-Za-z0-9_-])"
SECRET_PATTERNS: tuple[re.Pattern[str], ...] = (
    # OpenAI / Anthropic / generic "sk-…" keys (sk-proj-…, sk-ant-…, sk-live-…); at least one digit.
    re.compile(_NOT_KEY_CHAR_BEFORE + r"sk-(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{16,}"),
    # Stripe secret / restricted keys.
    re.compile(_NOT_KEY_CHAR_BEFORE + r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    # AWS access key ids.
    re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])"),
    # GitHub tokens (classic and fine-grained).
    re.compile(_NOT_KEY_CHAR_BEFORE + r"gh[pousr]_[A-Za-z0-9]{20,}"),
    re.compile(_NOT_KEY_CHAR_BEFORE + r"github_pat_[A-Za-z0-9_]{22,}"),
    # Slack tokens.
    re.compile(_NOT_KEY_CHAR_BEFORE + r"xox[abposr]-[A-Za-z0-9-]{10,}"),
    # Google API keys.
    re.compile(_NOT_KEY_CHAR_BEFORE + r"AIza[0-9A-Za-z_-]{30,}"),
    # Hugging Face tokens.
    re.compile(_NOT_KEY_CHAR_BEFORE + r"hf_[A-Za-z0-9]{30,}"),
    # JSON Web Tokens (header.payload.signature, header starting with '{"').
    re.compile(r"eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
    # PEM private keys.
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----", re.DOTALL),
)
# "Bearer <token>" and "Authorization: <scheme> <credential>": keep the words, drop the credential.
# A bearer token must hold a digit, so prose such as "bearer instruments-of-value" survives.
_TOKEN_CHARS = r"[A-Za-z0-9._~+/=-]"
_CONTEXT_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(rf"(?i)(\bbearer\s+)(?={_TOKEN_CHARS}*[0-9]){_TOKEN_CHARS}{{16,}}"),
    re.compile(
        rf"(?i)(\bauthorization[\"']?\s*[:=]\s*[\"']?(?:(?:bearer|basic|token)\s+)?){_TOKEN_CHARS}{{8,}}"
    ),
)


def _environment() -> dict[str, str]:
    """A copy of the environment. pytest sets PYTEST_CURRENT_TEST from the threads that run items
    concurrently, and a copy taken while it changes raises (KeyError, RuntimeError): take it again
    (it was an infra error on an item of a whole-dataset run)."""
    while True:
        try:
            return dict(os.environ)
        except (KeyError, RuntimeError):
            continue


def secret_values(extra: list[str] | None = None) -> list[str]:
    """Values that must never be written: credential-like environment variables and ``extra``."""
    environment = _environment()
    values = [v for k, v in environment.items() if _SECRET_ENV.search(k) and len(v) >= MIN_SECRET_CHARS]
    values.extend(s for s in extra or [] if s)
    return sorted(set(values), key=len, reverse=True)


_LETTERS_OR_DIGITS = re.compile(r"[^\W\d_]+|\d+")
_SEPARATOR = r"[\W_]*"  # any run of spaces and punctuation, or none


@functools.lru_cache(maxsize=4096)
def secret_pattern(secret: str) -> re.Pattern[str]:
    """How ``secret`` is found in any case, spacing or punctuation: its runs of letters and of
    digits in order, case-insensitive, with only spaces or punctuation (or nothing) between them.

    The one definition for redaction and for the σ check (``scoring.safety_violations``). A
    secret with no letter or digit is matched as it is.
    """
    parts = _LETTERS_OR_DIGITS.findall(secret)
    if not parts:
        return re.compile(re.escape(secret))
    # The secret's own leading and trailing punctuation ("…_", "!x") goes too when it is there, so
    # redaction never leaves a remnant of the value behind.
    found = list(_LETTERS_OR_DIGITS.finditer(secret))
    lead, trail = secret[: found[0].start()], secret[found[-1].end() :]
    core = _SEPARATOR.join(map(re.escape, parts))
    before = f"(?:{re.escape(lead)})?" if lead else ""
    after = f"(?:{re.escape(trail)})?" if trail else ""
    return re.compile(before + core + after, re.IGNORECASE)


def mentions_secret(text: str, secret: str) -> bool:
    """Whether ``text`` holds ``secret`` in any case, spacing or punctuation."""
    return secret_pattern(secret).search(text) is not None


def redact_text(text: str, secrets: list[str] | None = None) -> str:
    """``text`` with every known secret value (normalised, see ``secret_pattern``) and every
    key-like pattern replaced."""
    secrets_key = tuple(secrets or ())
    if _any_secret(secrets_key).search(text) is None:
        return text  # the common case: one scan instead of a substitution per pattern
    for secret in secrets_key:
        text = secret_pattern(secret).sub(REDACTED, text)
    for pattern in SECRET_PATTERNS:
        text = pattern.sub(REDACTED, text)
    for pattern in _CONTEXT_PATTERNS:
        text = pattern.sub(lambda m: m.group(1) + REDACTED, text)
    return text


@functools.lru_cache(maxsize=256)
def _any_secret(secrets: tuple[str, ...]) -> re.Pattern[str]:
    """One pattern that matches wherever any of redaction's patterns would: each alternative is
    one of them with its own flags scoped to it. Text it does not match is left as it is by every
    substitution in turn, so redaction can skip them."""
    patterns = [*(secret_pattern(s) for s in secrets), *SECRET_PATTERNS, *_CONTEXT_PATTERNS]
    return re.compile("|".join(_scoped(p) for p in patterns))


def _scoped(pattern: re.Pattern[str]) -> str:
    flags = "".join(
        letter for flag, letter in ((re.IGNORECASE, "i"), (re.DOTALL, "s")) if pattern.flags & flag
    )
    # An inline global flag at the start ("(?i)") is already in pattern.flags; it may not stand
    # inside a group.
    source = re.sub(r"^\(\?[a-z]+\)", "", pattern.pattern)
    return f"(?{flags}:{source})" if flags else f"(?:{source})"


def redact(value: Any, secrets: list[str] | None = None) -> Any:
    """Replace every secret inside strings (and mapping keys) of a JSON-like value.

    Patterns apply even when ``secrets`` is empty: an undeclared key is still a key.
    """
    # A trace repeats its strings (keys, the conversation re-sent on every call): each distinct
    # one is redacted once per value.
    done: dict[str, str] = {}

    def text(item: str) -> str:
        found = done.get(item)
        if found is None:
            found = done[item] = redact_text(item, secrets)
        return found

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return text(item)
        if isinstance(item, list | tuple):
            return [walk(v) for v in item]
        if isinstance(item, dict):
            return {(text(k) if isinstance(k, str) else k): walk(v) for k, v in item.items()}
        return item

    return walk(value)


def contains_secret(text: str, secrets: list[str] | None = None) -> bool:
    """Whether ``redact_text`` would change ``text`` (for checks and tests)."""
    return redact_text(text, secrets) != text


class TraceRecorder:
    """Collects the events of one item as plain JSON values (they travel to the xdist controller)."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def add(self, kind: str, **data: Any) -> None:
        self.events.append({"seq": len(self.events), "kind": kind, **data})


def episode_secret_values(episode: Any) -> list[str]:
    """``secret_values`` for one episode: credential-like environment values plus the secrets
    the episode declares (episode-wide and per session)."""
    declared = list(episode.safety.secrets)
    for session in episode.sessions:
        declared.extend(session.safety.secrets)
    return secret_values(declared)


def redact_report(report: Any, secrets: list[str] | None = None) -> None:
    """Redact a pytest report in place: its failure text and captured output sections are what
    the terminal (``-rA``, ``-v``) and the JUnit XML print."""
    longrepr = getattr(report, "longrepr", None)
    if longrepr is not None:
        text = str(longrepr)
        clean = redact_text(text, secrets)
        if clean != text:
            report.longrepr = clean  # pytest, xdist and junitxml all accept a plain string
    sections = getattr(report, "sections", None)
    if sections:
        report.sections = [(title, redact_text(content, secrets)) for title, content in sections]
