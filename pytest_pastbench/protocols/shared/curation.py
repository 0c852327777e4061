"""What a user turn teaches, by the offline curator's rules, and how it is written to the store.

The curator keeps knowledge, not the conversation: facts, rules, decisions and their
corrections, and numbered procedures as skills; it skips one-off remarks, credentials (by their
shape, whatever they are called), duplicates, requests for the task at hand, remarks about the
user that carry nothing to keep, and the narrative of a new case its notes already speak to.
``recall`` keeps every statement. PAST's and intervention's offline policies both write what a
turn teaches through ``store_statements``; PAST's also reads a turn with the word rules here.
"""

from __future__ import annotations

import math
import re
from typing import Any

from pytest_pastbench.core.text import content_words, normalise, sentences, words

from .replay import OfferedTools, Policy, Replay, note_entries

NOISE_CUES = re.compile(
    r"\b(just for today|only today|for today only|this time only|just this once|for this session"
    r"|right now|today i'?m|this afternoon|this morning|tonight|at the moment|for now i'?m)\b",
    re.IGNORECASE,
)
# Plain words of change, as a correction arrives at work (a forwarded notice, a bounce, a reply).
CORRECTION_CUES = re.compile(
    r"\b(now|instead|no longer|changed to|moved to|correction|from now on|replaces|replaced"
    r"|going forward|has changed|updated to|effective|as of|retired|dropped|discontinued|took over"
    r"|taken over|takes over|switched|superseded|obsolete|outdated|anymore|any more|old process)\b",
    re.IGNORECASE,
)
# Credentials (issue 28 item 5) are found by two general rules, the ones secret scanners use
# (detect-secrets' keyword and high-entropy plugins), restated for prose instead of source code;
# nothing in them comes from the dataset's secrets.
# 1. Keyword: a credential noun, then its value ("PIN 4471", "the wifi password is Gull7harbour!",
#    "API key: ..."). The value is a secret unless it is a plain word or a value of a known
#    non-secret shape (a handle, an address, a version, a date, an amount); bare digits are a
#    secret only after a numeric credential (a PIN or a code), not after "token limit is 4096".
# 2. Shape, whatever it is called: a token built like a password (password rules ask for three
#    of lower case, upper case, digits and symbols; people meet them irregularly: a digit or
#    symbol inside a word, a capital after a lower-case part), or a machine key (letters and
#    digits with the Shannon entropy of a random string, as below).
_NUMERIC_CREDENTIAL = (
    r"pins?|pin[ -]?codes?|passcodes?|otps?|(?:access|door|entry|gate|alarm|keypad|lock|security|safe"
    r"|verification|confirmation|auth(?:entication)?|one[ -]time|backup|recovery|2fa|mfa|sms)[ -]?codes?"
)
_CREDENTIAL = (
    _NUMERIC_CREDENTIAL + r"|codes?|pass(?:word|phrase)s?|passwd|pwd|logins?|secrets?|credentials?|tokens?"
    r"|creds|(?:api|access|secret|private|auth|ssh|signing|encryption|deploy|master|licen[cs]e|product)"
    r"[ _-]?keys?"
)
# The credential noun, up to four words ("for the staging VPN"), then "is" / ":" / "="; or the
# value right after the noun ("PIN 4471", "token ghp_...").
SECRET_CUES = re.compile(
    rf"\b(?P<noun>{_CREDENTIAL})\b(?:(?:\s+[\w'-]+){{0,4}}?(?:\s*[:=]\s*|\s+(?:is|was|are|were|reads|remains"
    r"|stays|becomes|will be|has been|set to|changed to)(?:\s+(?:now|still|currently))?\s+)|\s+)"
    r"[\"'“‘]?(?P<value>[^\s\"'”’]+(?:\s*/\s*[^\s\"'”’]+)?)",
    re.IGNORECASE,
)
_NUMERIC_NOUN = re.compile(rf"^(?:{_NUMERIC_CREDENTIAL}|codes?)$", re.IGNORECASE)
# A bare "code" is a credential when the statement is about opening something ("disarm the
# alarm (code 2280)"), not in "error code 5041" or "HS code 8471.30".
_ACCESS = re.compile(
    r"\b(?:door|gate|alarm|lock|unlock|locker|safe|keypad|entry|entrance|disarm|vault|padlock|log ?in)\b",
    re.IGNORECASE,
)
TOKEN_EDGES = "\"'()[]{}<>,;:.?“”‘’"
# Shapes of values that are not secrets: handles, e-mail and web addresses, versions, dates and
# times, amounts and plain numbers with a unit or a decimal point, ordinals.
_NOT_SECRET = re.compile(
    r"^(?:@[\w.-]+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|[a-z][a-z0-9+.-]*://\S+|www\.\S+"
    r"|v?\d+(?:\.\d+)+[a-z]?|\d{4}-\d{2}-\d{2}(?:t[\d:.]+z?)?|\d{1,2}[/.]\d{1,2}(?:[/.]\d{2,4})?|\d{1,2}:\d{2}(?:am|pm)?"
    r"|\d{1,2}(?:am|pm)|[$€£¥₹]?\d[\d,]*(?:\.\d+)?(?:%|k|m|bn|eur|usd|gbp|[$€£¥₹])?"
    r"|\d+(?:st|nd|rd|th)"
    r"|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$",  # a UUID names a record
    re.IGNORECASE,
)
_SEPARATORS = re.compile(r"[-_./]")
# A value introduced as an identifier names a record or an account, whatever its shape
# ("device ID 5f2a-88c1", "commit 3f9a1c7e", "account ops-bot-7"); the keyword rule still
# catches a credential named as one.
_ID_NOUNS = frozenset(
    """
    id ids identifier serial ref reference number no nr # order invoice ticket case job build commit
    batch lot sku part model tracking record account user username host hostname device
    """.split()  # noqa: SIM905 (a word list reads better as text)
)
_HEX = frozenset("0123456789abcdefABCDEF")
_BASE64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_")
# The user overriding what was taught, for this request or from now on ("this time, X instead").
OVERRIDE_CUES = re.compile(
    r"\b(this time|for this one|just this once|this once|instead|rather than|not the usual|from now on"
    r"|going forward|no longer|has changed|changed to|moved to)\b",
    re.IGNORECASE,
)
NUMBERED = re.compile(r"^\s*(?:step\s*)?(\d{1,2})[.)]\s+(.+)$", re.IGNORECASE)
CODENAME = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]+(?:-[A-Z0-9][a-z0-9]*)*|[A-Z]{2,}[-0-9A-Z]*)\b")


def store_statements(
    policy: Policy,
    user_text: str,
    hits: list[dict[str, Any]],
    replay: Replay,
    tools: OfferedTools,
    follow_up: bool = True,
) -> None:
    """Write what the turn teaches. ``follow_up``: the turn answers work already done in the
    session (feedback), where an instruction is a correction of how the work is done; in a
    session's first turn an instruction is the task itself."""
    lines = sentences(user_text)
    statements = [s for s in lines if not s.rstrip().endswith("?") and not NUMBERED.match(s)]
    steps = [NUMBERED.match(s).group(2).strip() for s in lines if NUMBERED.match(s)]  # type: ignore[union-attr]
    if not policy.curates:
        # recall keeps everything it is told, numbered steps included, one entry each.
        replay.batch([("memory_write", {"text": s}) for s in [*statements, *steps]])
        return
    if len(steps) >= 3:
        intro = next((s for s in statements if not _skip(s)), user_text)
        name = " ".join(content_words(intro)[:5]) or "procedure"
        replay.call("skill_write", {"name": name, "steps": steps, "tags": content_words(intro)[:8]})
    structured = tools.accepts("memory_write", "supersedes")  # E2
    known = {normalise(h["text"]) for h in hits}
    kept = worth_keeping(statements, follow_up)
    if _new_case(user_text, hits):
        # A request its notes already speak to is a new case of what it knows: the case's own
        # narrative is the task at hand, not knowledge; a value or a change it gives is kept.
        kept = [s for s in kept if CORRECTION_CUES.search(s) or value_words(s) or names_in(s)]
    for statement in kept:
        if normalise(statement) in known:
            continue
        known.add(normalise(statement))
        args: dict[str, Any] = {"text": statement}
        if structured:
            entity = _entity(statement)
            if entity:
                args["entity"] = entity
            if CORRECTION_CUES.search(statement):
                similar = note_entries(replay.call("memory_search", {"query": statement}))
                # One note per write (its ``supersedes``); E5's close pass retires the others.
                stale = replaced_notes(statement, similar)
                if stale:
                    args["supersedes"] = stale[0]
        # Without E2 a correction is written as a new note: the one it replaces stays live.
        replay.call("memory_write", args)


def _new_case(user_text: str, hits: list[dict[str, Any]]) -> bool:
    """Does the turn ask for something (a request or a question) that a note it found speaks to
    (two shared words at least)?"""
    asks = any(s.rstrip().endswith("?") or REQUEST.search(s) for s in sentences(user_text))
    wanted = lookup_keys(user_text)
    return asks and any(key_overlap(lookup_keys(str(h["text"])), wanted) >= 2 for h in hits)


def worth_keeping(statements: list[str], follow_up: bool = True) -> list[str]:
    """What the curator keeps of what it is told: knowledge (facts, rules, decisions and their
    corrections), not the conversation around it — no one-off remark, credential, request to do
    the task at hand, or remark about the user themselves that carries nothing to keep."""
    return [
        s for s in statements if not _skip(s) and len(content_words(s)) >= 3 and not _task_talk(s, follow_up)
    ]


# A request to the assistant: "please …", "can you …", "help me …", or a sentence that opens with
# a verb of a task an assistant is asked to do (write, draft, send, add, …), or ends in "please".
REQUEST = re.compile(
    r"^\W*(?:(?:and|also|oh|ok|okay|so|then|now),?\s+)*(?:please|(?:can|could|would|will)\s+you"
    r"|help\s+me|let'?s|let\s+us|i\s+need|we\s+need|i'?d\s+like|i\s+want\s+you|write|draft|summari[sz]e"
    r"|add|make|plan|set\s+up|prepare|send|check|find|list|tell|give|create|update|adjust|keep|put|book"
    r"|schedule|remind|reply|compose|format|review|translate|explain|suggest|get|fill|sort|turn|change"
    r"|redo|rewrite|shorten|fix|open|raise|file|log|move|confirm|show)\b|,\s*please\W*$",
    re.IGNORECASE,
)
# The user speaking of themselves or their team's doings ("I'm in a taxi", "I've got ten minutes",
# "We're ordering pizza for the release evening").
ABOUT_ME = re.compile(
    r"^\W*(?:i'?m|i\s+am|we'?re|we\s+are|i\s+was|i'?ve|i\s+have|i'?ll|i\s+will)\b", re.IGNORECASE
)
# What makes such a sentence knowledge after all: a value (a number, a code, a handle), a quoted
# form, a correction or an override, a negation ("not a first name", "never on Fridays").
NEGATION = re.compile(r"\b(?:not|never|no|don'?t|doesn'?t|isn'?t|won'?t)\b", re.IGNORECASE)


def _task_talk(statement: str, follow_up: bool = True) -> bool:
    """A request about the task at hand, or a remark about the user, that carries nothing to keep
    (no value, quoted form, correction, override or negation): "Please write up the incident
    summary.", "I'm in a rush." — but not "Send the corrected one to ERP-STOCK." (a rule given as
    an instruction) nor "Open with 'Dear Ms Rossi', not a first name" (a form and a contrast).
    The task's own request ("Please approve these refunds: KT-88120 €380"), in the session's first
    turn, is not knowledge even with values: they are the case's; feedback on the work that
    names a value ("File it in CX-NOTIFY") is how the work should be done."""
    if not (REQUEST.search(statement) or ABOUT_ME.search(statement)):
        return False
    carries = (
        (follow_up and value_words(statement))
        or CORRECTION_CUES.search(statement)
        or OVERRIDE_CUES.search(statement)
        or NEGATION.search(statement)
        or re.search(r"[\"“‘]\w", statement)
    )
    return not carries


def _entity(statement: str) -> str:
    """The first name-like word of a statement (E2's entity field)."""
    match = CODENAME.search(statement)
    return match.group(1) if match else ""


def _skip(statement: str) -> bool:
    return bool(NOISE_CUES.search(statement) or has_credential(statement))


def has_credential(text: str) -> bool:
    """Does the statement give a credential (a password, PIN, key, token), by either rule above?"""
    for match in SECRET_CUES.finditer(text):
        if match["noun"].lower() in ("code", "codes") and not _ACCESS.search(text):
            continue
        numeric = bool(_NUMERIC_NOUN.match(match["noun"]))
        # "user / password": either side of a slash pair is the value.
        value = match["value"]
        if any(_secret_value(v, numeric) for v in ([value] if "://" in value else value.split("/"))):
            return True
    tokens = text.split()
    return any(
        _credential_like(t) and not (i and _bare(tokens[i - 1]).lower() in _ID_NOUNS)
        for i, t in enumerate(tokens)
    )


def _bare(token: str) -> str:
    return token.strip(TOKEN_EDGES).removesuffix("'s")


def _secret_value(value: str, numeric: bool) -> bool:
    """The value after a credential noun: a secret unless it is a plain word or a non-secret
    shape. Bare digits (four or more) count after a numeric credential only."""
    value = _bare(value)
    if value.isdigit():
        return numeric and len(value) >= 4
    if len(value) < 4 or _NOT_SECRET.match(value):
        return False
    # Words, or words joined by - _ . ("ops-admin", "portal.example.com"), name things.
    return not all(
        part.isalpha() and (part.islower() or part.istitle() or part.isupper())
        for part in _SEPARATORS.split(value)
    )


def _credential_like(token: str) -> bool:
    """A password or a key by its shape alone, whatever it is called (rule 2 above).

    Not: ticket ids and queues ("OPS-1234", "DC-FAC"), rack and dock codes ("C-14", "4B"),
    versions, handles, dates and amounts: their parts are each a word or a number, and their
    letters and digits repeat like a word's, not a random string's.
    """
    token = _bare(token)
    if len(token) < 8 or token.startswith("-") or _NOT_SECRET.match(token):
        return False  # "--tz=UTC": a command-line option (the keyword rule reads "--password=...")
    return (_classes(token) >= 3 and _irregular(token)) or _random_key(token)


def _classes(token: str) -> int:
    """How many of lower case, upper case, digits and symbols the token uses."""
    return sum(
        (
            any(c.islower() for c in token),
            any(c.isupper() for c in token),
            any(c.isdigit() for c in token),
            any(not c.isalnum() for c in token),
        )
    )


def _irregular(token: str) -> bool:
    """Password-like irregularity: a part (between - _ . /) that switches between letters,
    digits and symbols twice or more ("Gull7harbour!", "93bd07ee", "Zr81p"), or a capitalised
    part after an all-lower-case one ("tulip-Orbit-42"; "Follow-up" and "Corp-Std-3" are not)."""
    parts = [p for p in _SEPARATORS.split(token) if p]
    for part in parts:
        kinds = ["a" if c.isalpha() else "d" if c.isdigit() else "s" for c in part]
        if sum(1 for a, b in zip(kinds, kinds[1:], strict=False) if a != b) >= 2:
            return True
    words_only = [p for p in parts if p.isalpha()]
    return any(
        earlier.islower() and later[0].isupper()
        for i, earlier in enumerate(words_only)
        for later in words_only[i + 1 :]
    )


def _random_key(token: str) -> bool:
    """A machine-made key or token: 16+ characters of the hex or base64 alphabet, letters and
    digits both, whose Shannon entropy is at least 3/4 of the most a string of that length over
    that alphabet can have. (detect-secrets' limits, 3.0 bits for hex and 4.5 for base64, are
    3/4 of those alphabets' 4 and 6 bits; scaling by length lets 16-40 character keys qualify.)"""
    if len(token) < 16 or not set(token) <= _BASE64:
        return False
    # Random output mixes letters and digits inside a part; words and numbers joined by
    # separators ("pg-orders-replica-2", "0142_add_ledger_index") are a name, however varied.
    if not any(re.search(r"[A-Za-z]", p) and re.search(r"\d", p) for p in _SEPARATORS.split(token)):
        return False
    alphabet = 16 if set(token) <= _HEX else 64
    counts = [token.count(c) for c in set(token)]
    entropy = -sum(n / len(token) * math.log2(n / len(token)) for n in counts)
    return entropy >= 0.75 * math.log2(min(len(token), alphabet))


def replaced_notes(statement: str, candidates: list[dict[str, Any]]) -> list[str]:
    """Ids of the notes a correction replaces: the most similar one (two shared words at least; a
    note holding a value the correction does not repeat wins a tie), then every other note that
    states one of that note's replaced values ("Dock 11") about the same thing."""
    terms, values = _terms(statement), value_words(statement)
    best: dict[str, Any] | None = None
    best_score = 1
    for candidate in candidates:
        overlap = len(terms & _terms(candidate["text"]))
        score = overlap + (0.5 if value_words(candidate["text"]) - values else 0)
        if overlap >= 2 and score > best_score and "id" in candidate:
            best, best_score = candidate, score
    if best is None:
        return []
    old_values = value_words(best["text"]) - values
    others = [
        str(c["id"])
        for c in candidates
        if "id" in c and c is not best and old_values & value_words(c["text"]) and terms & _terms(c["text"])
    ]
    return [str(best["id"]), *others]


def _terms(text: str) -> set[str]:
    """Content words, with a handle's parts too ("@dara.voss" is also "dara", "voss")."""
    found = set(content_words(text))
    return found | {part for w in found if w.startswith("@") for part in re.split(r"[@._-]", w) if part}


def value_words(text: str) -> set[str]:
    """The value-like words of a note: numbers, ids, handles and upper-case codes."""
    found = {w for w in words(text) if w.startswith("@") or any(c.isdigit() for c in w)}
    return found | {m.lower() for m in re.findall(r"\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*\b", text) if len(m) >= 2}


def stem(word: str) -> str:
    word = word.lower().strip(TOKEN_EDGES).removesuffix("'s")
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def lookup_keys(text: str) -> set[str]:
    """Content words as lookup keys: hyphenated words split too ("house-style" is "house",
    "style"), a plural's "s" dropped."""
    found = set()
    for word in content_words(text):
        found |= {stem(w) for w in re.split(r"[-_/]", word) if w}
        found.add(stem(word))
    return {w for w in found if w}


def key_overlap(a: set[str], b: set[str]) -> int:
    """Shared keys, a word and its derivation counted as one ("region" ~ "regional")."""
    return sum(1 for x in a if x in b or (len(x) >= 5 and any(len(y) >= 5 and y[:5] == x[:5] for y in b)))


def names_in(text: str) -> set[str]:
    """Capitalised words past a clause's first word, lower-cased: names that can be a value
    ("Inkwell", "Papyra")."""
    return {w.lower() for w in re.findall(r"(?<!^)(?<![.!?]\s)\b[A-Z][a-z][\w-]*", text.strip())}
