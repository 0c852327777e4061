"""What an answer CLAIMS is the answer (docs/design.md §4: "a check grades what the answer asserts").

A careful reader does not ask "does the text mention X?" but "does it say X is the answer?". The
reading here is by principle, at the level of sentences, statements and clauses, over the tokens of
``matching.py`` (so every surface form of a value is the value):

- a value the answer **denies** is not asserted: a negation whose scope holds it ("not X",
  "definitely not X", "not X, Y or Z", "neither X nor Y"), or a predicate that rejects it ("X is
  wrong", "X isn't right"). Negations count by parity ("X is not wrong" asserts X), and a negated
  bound states the bound ("no later than 14 May", "no more than 240 rpm");
- a value named as **old** is not asserted as current: a modifier or predicate of the past ("the
  previous X", "was X", "X has ended / expired / is closed / shut / no longer valid"), and the
  sides of a replacement, read from the sentence's structure: the subject and object of an active
  or passive replacement verb ("X was replaced by Y", "Y replaced X", "replace X with Y"), the
  prepositions of a change ("moved from X to Y", "changed X to Y"), substitution ("instead of X",
  "rather than X"), arrows ("X → Y") and "now" ("X is now Y");
- a **rival** (a stale or decoy value, another of the expected one's shape) said in its own clause
  to be ended, removed or departed ("was archived", "has left", "stopped serving"), valid only
  back then ("only applied during the pilot", "was the interim X"), taken or used by something
  else, a different thing, restricted ("is exit-only now"), away, or lacking what is needed ("lacks
  the fix", "doesn't have a ramp") is out of the running; "from X to Y" after any change verb makes
  X old, and "B took over" makes B current;
- a **leading answer** commits: when the first sentence, an instruction ("Book X.") or a bare
  phrase ("X.") gives the expected value and no rival, a rival named only in later sentences is
  context, unless such a sentence offers it again (a hedge, "actually", "also fine", "X.", "it's X",
  "the carrier is X", "I'd go with X", a replacement or a commitment);
- a value named as the **contrast** or the rule an exception departs from ("normally P3, but P1",
  "usually X; this time Y"), or only under a condition ("if …", "would be X"), is background: it is
  not asserted when the answer asserts something else;
- two or more candidates **offered without commitment** ("either X or Y", "X or maybe Y", "could be
  X, possibly Y", "not sure whether X or Y") are a hedge, scored like a wrong answer. A competing
  candidate is a listed stale or decoy value, or any value of the expected one's shape (a code, a
  number with the same unit, a date, a time, a name) offered as the alternative;
- where two candidates both stand as plain claims and nothing commits to one, the reading is
  ``UNDECIDED``, never a guess; so is a numeric date whose day/month order nothing decides.

``question`` (the session's last user turn) is used where it helps: a sentence of the answer that
only restates the question claims nothing, and a value the question itself names is not a
competing candidate. It is never required.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from pytest_pastbench.core.text import STOPWORDS, sentences, stem
from pytest_pastbench.judge.base import ClaimVerdict, Reading
from pytest_pastbench.protocols.shared.matching import (
    ARROW,
    BREAK,
    GLUE,
    MARKS,
    QUESTION,
    SOFT_MARKS,
    Doc,
    ambiguous_dates,
    doc,
    normalise_for_match,
    same,
    spans,
)


class Status(StrEnum):
    """How the answer holds one mention of a value."""

    ASSERTED = "asserted"
    NEW = "new"  # named as what replaced something: a commitment
    HEDGED = "hedged"  # offered with a hedge word ("maybe X")
    BACKGROUND = "background"  # contrast, usual rule, condition
    DENIED = "denied"
    OLD = "old"


OFFERED = frozenset({Status.ASSERTED, Status.NEW, Status.HEDGED})


def _words(text: str) -> frozenset[str]:
    """Cue words in the canonical surface form (spelling folded the way answers are)."""
    return frozenset(t for t in doc(text).surface if t not in MARKS)


# --- cue words: closed classes of English function words and predicates, not phrasings of the data
_NEG = _words("not never nor neither cannot t")  # "no" is a determiner ("no X report"): see below
_REPORT = _words(
    "did does has have had didn doesn hasn haven hadn"
)  # "didn't cite X": a report of an event, not a rejection
_SCOPE_END = _words("until till unless because since when where which who that while and if whether once")
_PREPOSITIONS = _words("at in on from to for with by of into within via about between per through")
_EVALUATIVE = _words(
    "right correct valid current it one answer used accepted allowed applicable available active "
    "open true ok okay good fine relevant needed required apply applies work works exist exists "
    "wrong incorrect closed shut old stale expired in the"
)
_BOUND = _words(
    "later earlier sooner more less fewer before after until till than over under above below "
    "beyond exceeding exceed only just"
)  # "no later than X", "not more than X", "not only X": a negated bound states the bound
_COMPARATIVE = _words("more less fewer")
_TEMPORAL_END = _words("anymore longer")  # "not … anymore", "no longer": old, not a denial
_OLD_BEFORE = _words(
    "old older former formerly previous previously prior earlier original originally outdated "
    "obsolete legacy superseded deprecated expired retired stale past"
)
_WAS = _words("was were")
_OLD_ADVERBS = _words("formerly previously originally earlier")
_RELATIVE = _words("that which who whose")
_MODAL = _words("do does must should shall may can will")
_OLD_AFTER = _words(
    "ended expired lapsed closed shut retired withdrawn cancelled revoked void obsolete outdated "
    "deprecated superseded gone discontinued decommissioned suspended defunct inactive abandoned "
    "previously formerly originally earlier anymore old stale finished replaced overridden "
    "unavailable dropped removed"
)
_DENY_AFTER = _words("wrong incorrect mistaken false inaccurate invalid bogus")
_NOW = _words("now currently today new latest current still")
_COMMIT = _words(
    "definitely certainly clearly confirmed correct right answer final current currently now new "
    "latest still actually effective starting henceforth since update updated going forward"
)
_ONSET = _words(
    "now this next today tomorrow monday tuesday wednesday thursday friday saturday sunday january "
    "february march april may june july august september october november december"
)
_HEDGE = _words("maybe perhaps possibly possible probably likely might could either guess alternatively")
_HEDGE_PHRASES = (("not", "sure"), ("not", "certain"), ("no", "idea"), ("t", "know"), ("not", "know"),
                  ("t", "tell"), ("unsure",), ("uncertain",), ("t", "sure"))  # fmt: skip
_HABIT = _words(
    "normally usually typically generally ordinarily default otherwise unlike except standard "
    "customarily traditionally"
)
_CONDITION = _words("if unless would")
_CONTINUITY = (("as", "usual"), ("as", "always"), ("as", "before"))  # "X as usual": X still holds
_LIST_GLUE = _words("or nor and either neither also even plus then")
_TURN = _words("but however yet")
_ASKED = "asked, not claimed"
_CONTRAST = _words("but however whereas although though yet so instead")
_REPLACE = _words(
    "replace replaced replaces replacing supersede superseded supersedes superseding override "
    "overrides overrode overridden overriding succeeded succeeds supplanted supplants"
)
_PARTICIPLE = _words("replaced superseded overridden succeeded supplanted swapped exchanged traded")
_SWAP = _words("swap swapped swaps swapping exchange exchanged exchanges traded trade")
_REPLACEMENT_NOUN = _words("replacement successor substitute")
_BE = _words("was were is are been being be got gets get")
_CHANGE = _words(
    "move moved moves moving change changed changes changing switch switched switches switching "
    "migrate migrated migrating update updated updates rescheduled reschedule shift shifted raised "
    "raise lowered lower increased increase decreased decrease reduced reduce bumped bump dropped "
    "cut extended extend transferred transfer revised revise amended amend pushed postponed "
    "relocated reassigned renamed converted went gone upgraded downgraded reverted corrected "
    "adjusted edited altered handed passed rerouted redirected repointed brought"
)
_TO = _words("to into")
_INFINITIVE = _words("have has had need needs want wants going ought used able got")
_SUBSTITUTE = (("instead", "of"), ("rather", "than"), ("in", "place", "of"), ("in", "lieu", "of"),
               ("as", "opposed", "to"))  # fmt: skip
_REFUSAL = (
    ("could", "find"), ("couldn", "find"), ("cannot", "find"), ("can", "find"), ("unable",),
    ("t", "know"), ("not", "know"), ("no", "record"), ("not", "found"), ("no", "information"),
    ("no", "idea"), ("not", "sure"), ("t", "have"), ("not", "have"), ("nothing",), ("t", "find"),
    ("not", "find"), ("t", "determine"), ("not", "determine"), ("t", "tell"), ("sorry",),
)  # fmt: skip


def _stem(word: str) -> str:
    return stem(word)  # core.text.stem: the one stemmer (cached, thread-safe)


def _stems(text: str) -> frozenset[str]:
    return frozenset(_stem(w) for w in text.split())


# Predicates of ending, removal and past validity, by stem so every inflection counts ("archive",
# "archived", "archiving"; "terminate", "terminated"): said of a value in its own clause, it is
# not current (principle: a value named as no longer valid is not asserted).
_END_STEMS = _stems(
    "end expire lapse close shut retire withdraw cancel revoke drop remove delete archive deprecate "
    "discontinue decommission suspend abandon quit resign depart disable deactivate terminate sunset "
    "scrap cease stop disband dissolve delist unlist offboard phase"
)
# Said of a rival only (a stale or decoy value, another value of the expected one's shape): the
# rival is unavailable, restricted, a different thing, or lacks what is needed. Read for rivals
# alone, since "Gate 3 is used by staff" describes the right value without withdrawing it.
_TAKEN = _words("taken occupied reserved booked claimed full")
_DIFFERENT = _words("different separate unrelated distinct another other")
_LACK = _stems("lack miss")
_HAVE = _words("have has had include includes contain contains support supports cover covers carry carries")
_STAND_IN = _words("interim temporary temporarily acting standin provisional stopgap")
_PAST_ONLY = _words("during until till while when")
_TAKE_OVER = _words("took take takes taken taking")
# An instruction answering the question ("Book X.", "Chase X.", "Use X for it."): the sentence's
# first word is one of these verbs of action. A closed class of instruction verbs, not phrasings.
_IMPERATIVE = _words(
    "use book take pick choose select go try ship send call ask contact email ping message deploy "
    "build chase reopen open assign escalate set give pay file submit route install run pin reserve "
    "order schedule put mark tag bill charge invoice cite quote apply enter unload load park meet "
    "head reply forward raise log sign approve follow stick hire buy rent fly drive ring text print "
    "attach check restore roll upgrade switch point"
)
_POINTING = _words("it that this there what here which who he she answer one")  # "it's X": 's is "is"
# In a later sentence, any of these makes a mention of a rival an answer again (a second offer, an
# override, an endorsement): "Or maybe X.", "Actually, X.", "X also works.", "X is fine too."
_REOFFER = _words(
    "actually instead rather correction wait sorry either both also too or answer correct right fine "
    "ok okay good works work better best valid prefer preferred alternatively equally"
)


@dataclass
class _Mention:
    role: str  # "expected" | "stale" | "decoy" | "shape"
    value: str
    start: int
    end: int
    status: Status = Status.ASSERTED
    commit: bool = False
    inherited: bool = False  # status taken from a list it is part of ("not X, Y or Z")
    hedge_only: bool = False  # a rival only when hedged, never through a plain "or"
    after_turn: bool = False  # in the clause after "but"/"however": the speaker's point
    cues: list[str] = field(default_factory=list)


def _has(seq: Sequence[str], phrase: Sequence[str]) -> bool:
    n = len(phrase)
    return any(tuple(seq[i : i + n]) == tuple(phrase) for i in range(len(seq) - n + 1))


def _bounds(tokens: Sequence[str], i: int, stops: frozenset[str] | set[str]) -> tuple[int, int]:
    """The range around index ``i`` up to (not including) the nearest stop tokens."""
    a = i
    while a > 0 and tokens[a - 1] not in stops:
        a -= 1
    b = i
    while b < len(tokens) and tokens[b] not in stops:
        b += 1
    return a, b


# --- finding candidates -------------------------------------------------------------------------


def _find(answer: str, values: Sequence[str], role: str) -> list[_Mention]:
    return [_Mention(role, v, s, e) for v in dict.fromkeys(values) for s, e in spans(answer, v)]


def _resolve_overlaps(found: list[_Mention]) -> list[_Mention]:
    """One mention per stretch of text: the longest wins, the expected value on a tie."""
    rank = {"expected": 0, "stale": 1, "decoy": 2, "shape": 3}
    kept: list[_Mention] = []
    for m in sorted(found, key=lambda m: (-(m.end - m.start), rank[m.role], m.start)):
        if all(m.end <= k.start or m.start >= k.end for k in kept):
            kept.append(m)
    return sorted(kept, key=lambda m: m.start)


def _token_class(token: str) -> str:
    bare = token.removeprefix(GLUE)
    if bare.startswith(("dt_", "dq_")):
        return "date"
    if bare.startswith("tm_"):
        return "time"
    if any(ch.isdigit() for ch in bare):
        return "number"
    return "word"


_NAME = re.compile(r"[A-Z][a-z'\u2019-]+")
_CODE = re.compile(r"\b[A-Z]{2,}(?:[-_][A-Z0-9]+)+\b|\b[A-Z]{3,}\b")
STOP_CODES = frozenset({"OK", "USD", "EUR", "GBP", "UTC", "CET", "API", "PR", "IT", "QA", "FAQ", "ID"})


def _shape_candidates(answer: str, expected: Sequence[str]) -> list[_Mention]:
    """Values of the expected value's shape: the same words with another number or code ("Dock
    11" for "Dock 4B", "WV-2270" for "WV-2207", "300 rpm" for "240 rpm"), another date or time,
    or, for a name, another capitalised name of as many words."""
    found: list[_Mention] = []
    have = doc(answer).match
    index = [i for i, t in enumerate(have) if t not in MARKS]
    for form in expected:
        want = [t for t in doc(form).match if t not in MARKS]
        classes = [_token_class(t) for t in want]
        if not want:
            continue
        if all(c == "word" for c in classes) and _CODE.fullmatch(form):
            # A code of capitals ("IAM-GRANTS"): other such codes are its rivals, but only when
            # hedged (a plain "X or Y" of labels is a set to choose from, not two answers).
            for raw in dict.fromkeys(_CODE.findall(answer)):
                if raw not in STOP_CODES:
                    found += [_Mention("shape", raw, a, b, hedge_only=True) for a, b in spans(answer, raw)]
            continue
        if all(c == "word" for c in classes):
            words = form.split()
            if not all(_NAME.fullmatch(w) for w in words):
                continue
            raw = answer.split()
            for i in range(len(raw) - len(words) + 1):
                chunk = [w.strip(".,;:!?()\"'") for w in raw[i : i + len(words)]]
                if all(_NAME.fullmatch(w) for w in chunk) and not any(
                    w.lower() in STOPWORDS or w.lower() in _CUE_WORDS for w in chunk
                ):
                    name = " ".join(chunk)
                    found += [_Mention("shape", name, s, e) for s, e in spans(answer, name)]
            continue
        n = len(want)
        for k in range(len(index) - n + 1):
            got = [have[index[k + j]] for j in range(n)]
            if got[0].startswith(GLUE):
                continue
            ok = True
            for w, g, c in zip(want, got, classes, strict=True):
                gc = _token_class(g)
                if c == "word":
                    ok = same(w, g)
                elif c == "time":
                    ok = gc == "time" or (gc == "number" and "." in g)
                else:
                    ok = gc == c
                if not ok:
                    break
            end = index[k + n - 1] + 1
            if any(
                have[p] in MARKS and (have[p] not in {",", ":"} or _token_class(have[p - 1]) != "word")
                for p in range(index[k], end)
            ):
                # a value never spans two sentences or clauses ("Deploy 2.8.5. The 2.8.4 …",
                # "4.1.3; 4.1.2 …"); a label may stand before its value ("Dock — 11")
                continue
            if ok and not (end < len(have) and have[end].startswith(GLUE)):
                text = " ".join(doc(answer).surface[index[k] : end])
                found.append(_Mention("shape", text, index[k], end))
    return found


_CUE_WORDS = (
    _NEG | _OLD_BEFORE | _OLD_AFTER | _DENY_AFTER | _COMMIT | _HEDGE | _HABIT | _LIST_GLUE | _CONTRAST
)


def _echoes_question(answer_doc: Doc, m: _Mention, asked: tuple[str, ...]) -> bool:
    """The mention sits in words copied from the question (≥ 4 more than the value itself): a
    restated question, a ticket titled with the user's words, is no evidence of an answer."""
    if not asked:
        return False
    text = " " + " ".join(asked) + " "
    tokens = [t.removeprefix(GLUE) for t in answer_doc.match]

    def inside(a: int, b: int) -> bool:
        window = [t for t in tokens[a:b] if t not in MARKS]
        return f" {' '.join(window)} " in text

    if not inside(m.start, m.end):
        return False
    a, b = m.start, m.end
    while a > 0 and tokens[a - 1] != BREAK and inside(a - 1, b):
        a -= 1
    while b < len(tokens) and tokens[b] != BREAK and inside(a, b + 1):
        b += 1
    return len([t for t in tokens[a:b] if t not in MARKS]) - (m.end - m.start) >= 4


def questions_asked(prompt: str) -> str:
    """The prompt's questions (its sentences that end with "?"): what an echo of the prompt may
    not count as answering. The prompt's statements are facts given, which an answer may use."""
    return " ".join(part for part in sentences(prompt) if part.rstrip().endswith("?"))


def _echoed_sentences(answer_doc: Doc, asking: str) -> list[tuple[int, int]]:
    """Sentences of the answer that only restate what the user asked (``asking``: the prompt's
    questions, ``questions_asked``); they claim nothing. A fact the user stated ("the digest goes
    out at 11:30 this time"), restated, is asserted — it is the present evidence of an answer."""
    if not asking.strip():
        return []
    asked = " " + " ".join(t for t in doc(asking).match if t not in MARKS) + " "
    out = []
    tokens = answer_doc.match
    start = 0
    for i in range(len(tokens) + 1):
        if i == len(tokens) or tokens[i] == BREAK:
            content = [t.removeprefix(GLUE) for t in tokens[start:i] if t not in MARKS]
            if len(content) >= 3 and f" {' '.join(content)} " in asked:
                out.append((start, i))
            start = i + 1
    return out


# --- reading each mention -----------------------------------------------------------------------


def _statement(s: Sequence[str], m: _Mention) -> tuple[int, int]:
    """The sentence around a mention, cut at ";" and at contrastive conjunctions ("but", "so")."""
    a, b = _bounds(s, m.start, {BREAK, ";"})
    lo = a
    for i in range(a, m.start):
        if s[i] in _CONTRAST:
            lo = i
    hi = b
    for i in range(m.end, b):
        if s[i] in _CONTRAST:
            hi = i
            break
    return lo, hi


def _segment(s: Sequence[str], m: _Mention, lo: int, hi: int) -> tuple[int, int]:
    """The clause around a mention inside its statement, cut at commas, colons, brackets."""
    a = m.start
    while a > lo and s[a - 1] not in SOFT_MARKS:
        a -= 1
    b = m.end
    while b < hi and s[b] not in SOFT_MARKS:
        b += 1
    return a, b


def _replacement(s: Sequence[str], m: _Mention, lo: int, hi: int) -> tuple[Status, str] | None:
    """The side of a replacement, change or substitution the mention is on, from the statement's
    structure; None when the statement has none around the mention."""
    st = list(s[lo:hi])
    rel_start, rel_end = m.start - lo, m.end - lo
    arrows = [i for i, t in enumerate(st) if t == ARROW]
    if arrows:
        if any(i >= rel_end for i in arrows):
            return Status.OLD, "before an arrow"
        return Status.NEW, "after an arrow"
    for phrase in _SUBSTITUTE:
        for i in range(len(st) - len(phrase) + 1):
            if tuple(st[i : i + len(phrase)]) != phrase:
                continue
            after = i + len(phrase)
            if after <= rel_start and all(t in _LIST_GLUE or t in MARKS for t in st[after:rel_start][-3:]):
                return Status.OLD, f"after '{' '.join(phrase)}'"
            if rel_end <= i:
                return Status.NEW, f"before '{' '.join(phrase)}'"
    if "instead" in st:  # "use Y instead" (without "of")
        i = st.index("instead")
        if rel_end <= i and (i + 1 >= len(st) or st[i + 1] != "of"):
            return Status.NEW, "named instead"
    for v, word in enumerate(st):
        if word in _REPLACE or word in _SWAP:
            preps = {"by", "with"} | ({"for"} if word in _SWAP else set())
            passive = (word in _PARTICIPLE or word.endswith("ed")) and (
                any(t in _BE for t in st[max(0, v - 2) : v]) or "by" in st[v + 1 : v + 3]
            )
            # The subject and object of the verb are in its own clause: nothing subordinate
            # ("silenced under X while the certificate is replaced") and no comma between,
            # except an apposition or relative clause right before it ("X, which replaced Y").
            between = st[rel_end:v] if rel_end <= v else st[v + 1 : rel_start]
            if any(t in _SCOPE_END or t in SOFT_MARKS for t in between) and not (
                rel_end <= v and between in ([",", "which"], [",", "that"], ["which"], ["that"])
            ):
                continue
            if rel_end <= v:
                return (
                    (Status.OLD, "replaced (passive subject)") if passive else (Status.NEW, "the replacement")
                )
            prep = next((i for i in range(v + 1, rel_start) if st[i] in preps), None)
            if prep is not None:
                return Status.NEW, "the replacement"
            if rel_start - v > 4:
                continue
            return Status.OLD, "replaced (object)"
        if word in _REPLACEMENT_NOUN:
            # "Y is the replacement for X", "X's successor is Y": only within the noun's own
            # clause and close by ("a replacement rotor for the lab, delivery to X" names none).
            between = st[v + 1 : rel_start] if rel_start > v else st[rel_end:v]
            if any(t in SOFT_MARKS or t in _SCOPE_END for t in between) or len(between) > 4:
                continue
            if rel_start > v and between and between[0] in {"for", "of", "to"} and len(between) <= 2:
                return Status.OLD, "what the replacement is for"
            if rel_end <= v and "s" in between:
                return Status.OLD, "the one whose replacement is named"
            if (
                rel_end <= v
                and any(t in _BE for t in between)
                or rel_start > v
                and any(t in _BE for t in between)
            ):
                return Status.NEW, "the replacement"
    froms = [i for i, t in enumerate(st) if t == "from"]
    tos = [i for i, t in enumerate(st) if t in _TO]
    verbs = [i for i, t in enumerate(st) if t in _CHANGE]
    took_over = [i for i in froms if i > 0 and st[i - 1] == "over"]
    for o, word in enumerate(st):  # "A has left; B took over": the one who takes over is current
        if (
            word == "over"
            and o > 0
            and st[o - 1] in _TAKE_OVER
            and rel_end <= o - 1
            and o - 1 - rel_end <= 3
            and not any(t in SOFT_MARKS or t in _SCOPE_END for t in st[rel_end : o - 1])
        ):
            return Status.NEW, "took over"
    for f in took_over:  # "Y took over from X", "taking over from X"
        if f < rel_start <= f + 3:
            return Status.OLD, "taken over from"
        if rel_end <= f and not any(t in SOFT_MARKS or t in _SCOPE_END for t in st[rel_end:f]):
            return Status.NEW, "took over"

    # A change needs its own "from"/"to" right after the verb, in the same clause ("moved from X
    # to Y", "changed X to Y"), never a "to" of an infinitive ("have to approve") or of a range.
    def near(v: int, positions: list[int]) -> int | None:
        for i in positions:
            if v < i <= v + 5 and not any(t in SOFT_MARKS for t in st[v:i]):
                if st[i] in _TO and st[i - 1] in _INFINITIVE:
                    continue
                return i
        return None

    changes = [(v, near(v, froms), near(v, tos)) for v in verbs]
    changes = [c for c in changes if c[1] is not None or c[2] is not None]
    if changes:
        v, frm, to = changes[0]
        if to is None and frm is not None:
            to = next((i for i in tos if i > frm and not any(t in SOFT_MARKS for t in st[frm:i])), None)
        if rel_end <= v and any(t in SOFT_MARKS for t in st[rel_end:v]):
            return None
        if frm is not None and frm < rel_start <= frm + 3 and (to is None or rel_start < to or to < frm):
            return Status.OLD, "changed from"
        if to is not None and to < rel_start <= to + 3:
            return Status.NEW, "changed to"
        if rel_end <= v:
            return (Status.OLD, "what changed") if to is not None and frm is None else None
        if to is not None and v < rel_start and rel_end <= to:
            return Status.OLD, "changed from"
    if "now" in st:  # "X is now Y"
        n = st.index("now")
        # the "now" of X's own copula, right after it: not a "now" of a later clause ("the cut-off
        # is X while …, and it's 12:50 now")
        copula = st[rel_end:n]
        if rel_end <= n and copula and all(t in _BE for t in copula) and n + 1 < len(st):
            return Status.OLD, "is now something else"
    return None


def _commits(statement: Sequence[str]) -> bool:
    """The statement says what holds now or from a point on: "now", "new", "current", "from now
    on", "as of this week", "from 1 March", "since the new line started", "starting …"."""
    if any(t in _COMMIT for t in statement) or _has(statement, ("as", "of")):
        return True
    for i, t in enumerate(statement[:-1]):
        nxt = statement[i + 1]
        after = statement[i + 2] if i + 2 < len(statement) else ""
        if t == "from" and (nxt in _ONSET or _token_class(nxt) != "word" or after.startswith(GLUE)):
            return True
    return False


def _hedged(seq: Sequence[str]) -> bool:
    return any(_has(seq, p) for p in _HEDGE_PHRASES) or any(t in _HEDGE for t in seq)


def _phrase_positions(seq: Sequence[str], phrases: Sequence[Sequence[str]]) -> set[int]:
    out: set[int] = set()
    for p in phrases:
        for i in range(len(seq) - len(p) + 1):
            if tuple(seq[i : i + len(p)]) == tuple(p):
                out.update(range(i, i + len(p)))
    return out


def _negates_bound(seq: Sequence[str], i: int) -> bool:
    """ "no later than X", "can't go above X", "must not exceed X": a negated bound states it."""
    for k in range(i + 1, min(i + 4, len(seq))):
        if seq[k] in _COMPARATIVE:
            return k + 1 < len(seq) and seq[k + 1] == "than"  # "no more than X", not "not needed more"
        if seq[k] in _BOUND:
            return True
    return False


def _relative(seq: Sequence[str], i: int) -> bool:
    """The negation at ``i`` is inside a relative clause ("… that are not …", "… which isn't …")."""
    head = [t for t in seq[max(0, i - 3) : i] if t not in _BE and t != "s"]
    return bool(head) and head[-1] in _RELATIVE


def _cues_before(before: Sequence[str], nominal: bool = True) -> tuple[int, int]:
    """(negations, old cues) that reach the mention from before it. A negation reaches a value
    only from close by (≤ 4 tokens, "definitely not X", "don't use X", "not X"), not across a
    subordinate clause ("must not deploy until … X"), and a negated past event reports what did
    not happen ("the ticket didn't cite X"), which is no rejection of X."""
    neg = old = 0
    skip = _phrase_positions(before, _HEDGE_PHRASES)
    start = 0
    for i, t in enumerate(before):
        if t in _SCOPE_END:
            start = i + 1
    for i, t in enumerate(before):
        if i in skip or i < start:
            continue
        nxt = before[i + 1] if i + 1 < len(before) else ""
        if t in _NEG or t == "no":
            if nxt in _TEMPORAL_END:
                old += 1
            elif t == "no" or _negates_bound(before, i):
                continue  # "no X report" states an absence, not a rejection of X
            elif len(before) - i > 5 or (i > 0 and before[i - 1] in _REPORT):
                continue
            elif _relative(before, i):
                continue  # "numbers that are not in X": the clause restricts a noun, it denies no X
            elif (
                not nominal and len(before) - i <= 2 and (t == "never" or (i > 0 and before[i - 1] in _MODAL))
            ):
                continue  # "never speculate", "do not share": a rule of conduct states the act
            else:
                neg += 1
        elif t == "anymore":
            old += 1
    return neg, old


def _cues_after(after: Sequence[str], governed: bool) -> tuple[int, int, int]:
    """(negations, old cues, denial cues) that the predicate after the mention says of it. A
    negation counts when it negates an evaluation of the value ("X is not right", "X isn't it",
    "X is not used any more"), not a lexical verb ("X is never rebuilt" reports an event). None
    applies to a value that is the object of a preposition or a bound ("the meeting at X was
    cancelled", "anything over X is cancelled"): the predicate is about something else."""
    if governed:
        return 0, 0, 0
    neg = old = deny = 0
    skip = _phrase_positions(after, _HEDGE_PHRASES)
    if len(after) >= 2 and after[0] in _WAS and after[1] in _EVALUATIVE - _DENY_AFTER:
        old += 1  # "X was correct until May": a past state
    for i, t in enumerate(after):
        if i in skip:
            continue
        if t in _NEG or t == "no":
            rest = [w for w in after[i + 1 : i + 4] if w not in _BE]
            nxt = rest[0] if rest else ""
            if nxt in _TEMPORAL_END:
                old += 1
            elif t != "no" and not _negates_bound(after, i) and (nxt in _EVALUATIVE or not rest):
                neg += 1
        elif t == "anymore":
            old += 1
        elif t in _DENY_AFTER:
            deny += 1
    return neg, old, deny


def _old_before(before: Sequence[str], nominal: bool, governed: bool = False) -> bool:
    """A past marker right before the mention ("the previous X", "was X"), not reset by "now".
    "was" marks a value as old only when it is a nominal (a code, number, date, name): before a
    plain word it is the verb's tense or voice ("it was yanked")."""
    tail = [t for t in before[-4:] if t not in _BE]
    if tail[-2:] == ["used", "to"] and not governed:
        return True  # "it used to be X": a past habit or state
    if (
        before
        and not governed
        and (before[-1] in _LEFT_BEHIND or (_stem(before[-1]) in _END_STEMS and _past_form(before[-1])))
    ):
        # the object of a verb of ending or departure in the past: "we left X", "they closed X",
        # "Finance cancelled X"
        return len(before) < 2 or before[-2] not in _BE
    for k, t in enumerate(reversed(before[-5:])):
        if t in _NOW:
            return False
        if t in _BE and not (t in _WAS and k <= 1):
            return False  # a modifier of the past belongs to the noun right before the value
        if governed and t not in _OLD_ADVERBS:
            continue  # "expired on X": X is when it ended, not an old X ("formerly at X" still is)
        if t in _OLD_BEFORE or (t in _WAS and k <= 1 and nominal):
            return True
        if t == "to" and k + 1 < len(before) and list(reversed(before[-5:]))[k + 1 : k + 2] == ["used"]:
            return True
    return False


def _past_perfect_state(before: Sequence[str]) -> bool:
    """ "it had been on X", "the limit had been X": the past perfect states what held before a
    later point, so X is the earlier state."""
    tail = list(before[-3:])
    if tail and tail[-1] in _PREPOSITIONS:
        tail = tail[:-1]
    return tail[-2:] == ["had", "been"]


def _past_adverb_at_end(after: Sequence[str]) -> int:
    """A clause-final adverb of the past after a value a preposition governs ("the freeze was on
    Thursday before", "the desk was in Hall B previously"): it dates the clause's state, so the
    value is old whatever the preposition. Other predicates of the past stay out for a governed
    value ("expired on X": X is when it ended); "on Thursday before the release" goes on."""
    return int(bool(after) and (after[-1] == "before" or after[-1] in _OLD_ADVERBS))


_PRESENT_BE = _words("is are am be s")


def _past_form(word: str) -> bool:
    return word.endswith("ed") and len(word) > 4


def _past_tense(clause: Sequence[str]) -> bool:
    """The clause is in a past tense: "was", "were", "had", or a past form not made present by a
    "be" right before it ("X applied during the pilot", not "X is used when …")."""
    return any(
        w in _WAS
        or w == "had"
        or (_past_form(w) and not any(b in _PRESENT_BE for b in clause[max(0, k - 2) : k]))
        for k, w in enumerate(clause)
    )


def _subordinate(words: Sequence[str]) -> bool:
    """A subordinate clause has begun in ``words``: a scope word ("when", "until") or a "before"/
    "after" with words following ("X is sent for 90 days before it's removed": the removal is
    the subordinate clause's, not X's)."""
    return any(
        w in _SCOPE_END or (w in ("before", "after") and k + 1 < len(words)) for k, w in enumerate(words)
    )


def _old_after(after: Sequence[str]) -> int:
    """Predicates of the past after the mention: "X has ended", "X was used before" (an adverb at
    the clause's end, not "before booking"), "X is out of service", "X is over"."""
    n = 0
    for i, t in enumerate(after):
        adverb_before = t == "before" and i + 1 >= len(after)
        out_of = t == "out" and i + 1 < len(after) and after[i + 1] == "of"
        is_over = (
            t in ("over", "out") and i > 0 and after[i - 1] in _BE and (t == "over" or i + 1 >= len(after))
        )
        # a past form in the value's own clause ("X was archived", "X has been terminated"), not
        # the noun ("until the end of May") nor a subordinate clause ("… when the pilot ended")
        own = not _subordinate(after[:i])
        ended = own and _stem(t) in _END_STEMS and (t.endswith("ed") or t in {"shut", "quit", "withdrawn"})
        # "X has left", "X left": a departure, not "X left a note" (an object follows)
        left = own and t == "left" and (i + 1 >= len(after) or (i > 0 and after[i - 1] in _HAVE | _BE))
        # "X only applied during the pilot", "X was only for the trial period": past validity
        # ... but a present "X grants 500 only when downtime passes 45 minutes" is a condition of
        # the rule as it stands: validity limited to a period is past only in a past tense
        only_then = (
            own
            and t == "only"
            and (
                (i > 0 and after[i - 1] in _WAS)
                or (
                    any(w in _PAST_ONLY or _past_form(w) for w in after[i + 1 : i + 3])
                    and _past_tense(after[: i + 4])
                )
            )
        )
        # an adjective before a noun modifies that noun ("Lane 31, by the old ticket office")
        attributive = t in _ADJECTIVES_OF_AGE and i + 1 < len(after) and after[i + 1] not in _ONE
        # a phrasal verb of ending ("X fell through", "X was called off", "X pulled out")
        phrasal = own and i > 0 and (after[i - 1], t) in _PHRASAL_ENDS
        n += int(
            own
            and (
                (t in _OLD_AFTER and t != "anymore" and not attributive) or adverb_before or out_of or is_over
            )
        )
        n += int(t not in _OLD_AFTER and (ended or left or only_then or phrasal))
    return n


_LEFT_BEHIND = _words("left quit shut")
_ADJECTIVES_OF_AGE = _words("old stale obsolete outdated defunct inactive")
_ONE = _words("one ones now anyway too") | MARKS
_PHRASAL_ENDS = frozenset(
    (a, b)
    for verbs, particle in (
        ("fell fallen falls falling", "through"),
        ("called calls calling", "off"),
        ("pulled pulls backed backs dropped drops opted opts", "out"),
        ("closed closes shut shuts wound winds", "down"),
    )
    for a in verbs.split()
    for b in [particle]
)


def _withdrawn_rival(after: Sequence[str]) -> str | None:
    """What the predicate after a rival says that takes it out of the running, or None: it is
    taken or used by something else ("X is taken by the audit job", "X is in use"), a different
    thing ("X is the VPN one, a different issue"), restricted ("X is exit-only now"), or lacks
    what is needed ("X lacks the fix", "X doesn't have a ramp")."""
    for i, t in enumerate(after):
        prev = after[i - 1] if i > 0 else ""
        nxt = after[i + 1] if i + 1 < len(after) else ""
        in_use = t == "in" and nxt == "use" and prev in _BE
        if (t in _TAKEN and nxt != "over") or (t == "used" and nxt == "by") or in_use:
            return "taken or used by something else"
        if t in _DIFFERENT and any(w in _BE for w in after[:i]):
            return "a different one"
        if t == "only" and i >= 2 and after[i - 2] in _BE and prev not in _NOW and prev.isalpha():
            return "restricted"
        if t in _STAND_IN and any(w in _BE for w in after[:i]):
            return "a stand-in"
        if t in _PAST_ONLY and after and after[0] in _WAS:
            return "valid only back then"  # "X was the carrier during the strike"
        if (t == "leave" and prev == "on") or (t == "away" and prev in _BE):
            return "away"
        if t == "being" and prev in _BE and _past_form(nxt):
            return "being worked on"  # "X is being rewired", "X is being repaired": not usable now
        if _stem(t) in _LACK or t == "without":
            return "lacks what is needed"
        if t in _HAVE and any(w in _NEG for w in after[max(0, i - 3) : i]):
            return "lacks what is needed"
    return None


_BRACKET_OLD = _OLD_BEFORE | _OLD_AFTER | _WAS | _words("before")
_BRACKET_NEW = _words("new current currently now latest today active valid correct right")


def _bracket_mark(s: Sequence[str], m: _Mention) -> tuple[Status, str] | None:
    """A bracketed note right after a value is said of that value alone: "Dock 4B (old)",
    "X (retired)", "Y (new)", "Z (no longer used)". None when there is no such note, or it
    negates ("(not old)") or says both."""
    if m.end >= len(s) or s[m.end] != "(":
        return None
    close = next((i for i in range(m.end + 1, min(len(s), m.end + 6)) if s[i] == ")"), None)
    if close is None:
        return None
    note = list(s[m.end + 1 : close])
    no_longer = _has(note, ("no", "longer")) or "anymore" in note
    if any(t in _NEG for t in note) or ("no" in note and not no_longer):
        return None
    old = no_longer or any(t in _BRACKET_OLD or (_stem(t) in _END_STEMS and _past_form(t)) for t in note)
    new = any(t in _BRACKET_NEW for t in note)
    if old == new:
        return None
    return (Status.OLD, "marked old in brackets") if old else (Status.NEW, "marked current in brackets")


# Subordinators of a clause of time: with a present tense, what it says is still to come.
_AWAITING = _words("once when whenever until till after before")


def _awaited(before: list[str], after: Sequence[str]) -> bool:
    """The value is the subject of a clause of time in the present tense ("once build X is
    out", "until Gate 9 reopens", "as soon as X ships"): an event awaited, not the value's state
    now. Not a value a preposition governs ("until 17:00 on Fridays"), nor a past event ("after
    X was retired" still says X is old)."""
    opener = max(
        (
            i
            for i, t in enumerate(before)
            if t in _SCOPE_END or (t == "as" and before[i - 2 : i] == ["as", "soon"])
        ),
        default=None,
    )
    if opener is None or before[opener] not in _AWAITING | {"as"}:
        return False
    if any(t in _PREPOSITIONS for t in before[opener + 1 :]):
        return False
    verb = any(t in _BE or t in _MODAL or t in _HAVE for t in after) or (
        bool(after) and after[0].isalpha() and after[0] not in _PREPOSITIONS and after[0].endswith("s")
    )
    return verb and not _past_tense(after) and "did" not in after


# A sentence opened by an adverb of the past dates its clause ("Before, …", "Previously …").
_PAST_OPENERS = _OLD_ADVERBS | _words("before initially")
_COMMA_OPENERS = _words("before earlier")  # without a comma these open a phrase ("Before the release")


def _opened_in_the_past(s: Sequence[str], m: _Mention) -> bool:
    """The mention's sentence (or its part after ";") opens with an adverb of the past, and no
    "now" or contrast stands between it and the mention ("Before, the freeze was on Thursday")."""
    start, _ = _bounds(s, m.start, {BREAK, ";"})
    if start >= m.start or s[start] not in _PAST_OPENERS:
        return False
    if s[start] in _COMMA_OPENERS and (start + 1 >= len(s) or s[start + 1] != ","):
        return False
    return not any(t in _NOW or t in _CONTRAST for t in s[start + 1 : m.start])


_MOTION = _words("went gone go goes going rose rise rises fell fall falls grew grow grows jumped climbed")


def _from_to(s: Sequence[str], by_start: list[_Mention]) -> dict[int, tuple[Status, str]]:
    """ "re-budgeted C-9 from 4 kW to 6 kW", "bumped from P3 to P1", "went from 20 to 35": when both
    sides of a "from X to Y" are candidates and a change verb leads it in the same clause, X is
    the old value and Y the claim, whatever the verb (any past form counts, not only a listed one)."""
    out: dict[int, tuple[Status, str]] = {}
    for x, y in zip(by_start, by_start[1:], strict=False):
        lead = list(s[max(0, x.start - 3) : x.start])
        if "from" not in lead or any(t in MARKS for t in lead[lead.index("from") :]):
            continue
        if list(s[x.end : y.start]) != ["to"]:
            continue
        f = x.start - len(lead) + lead.index("from")
        k = f - 1
        verb = False
        while k >= 0 and f - k <= 6 and s[k] not in MARKS:
            w = s[k]
            if w in _CHANGE or w in _MOTION or (w.endswith("ed") and len(w) > 4):
                verb = True
                break
            k -= 1
        if verb:
            out[id(x)] = (Status.OLD, "changed from")
            out[id(y)] = (Status.NEW, "changed to")
    return out


def _noun_phrase_end(by_start: list[_Mention], n: int) -> int:
    """The index of the last mention abutting ``by_start[n]`` with no word between ("the Cinder
    Yard side door"): one noun phrase, so what is said after it is said of each."""
    last = n
    while last + 1 < len(by_start) and by_start[last + 1].start == by_start[last].end:
        last += 1
    return last


_CURRENT_LABEL = _words("current currently existing")


def _labelled_current(s: Sequence[str], m: _Mention) -> bool:
    """The answer labels the value current right beside it ("from the current X to Y", "from X
    (current) to Y"): that outweighs reading it as the old side of a change, which a requested
    change ("please raise it from X to Y") has not made yet."""
    k = m.end
    while k < len(s) and s[k] in SOFT_MARKS:
        k += 1
    return (k < len(s) and s[k] in _CURRENT_LABEL) or any(
        t in _CURRENT_LABEL for t in s[max(0, m.start - 2) : m.start]
    )


_INTERROGATIVE = _words(
    "would should could can will shall may is are was were do does did has have what why how who which "
    "when where"
)


def _question_is_the_value(s: Sequence[str], m: _Mention) -> bool:
    """The value is itself a question and is the whole sentence ("Would I use it? Yes, …" for a
    value "Would I use it"): written as a question it is stated, as a line or heading, not asked
    about. "Pier 3?" asks about Pier 3: the value is no question."""
    starts = m.start == 0 or s[m.start - 1] == BREAK
    return starts and m.end < len(s) and s[m.end] == QUESTION and s[m.start] in _INTERROGATIVE


def _read_mentions(answer: str, found: list[_Mention]) -> None:
    """Set each mention's status from its statement and clause."""
    s = doc(answer).surface
    by_start = sorted(found, key=lambda m: m.start)
    from_to = _from_to(s, by_start)
    for n, m in enumerate(by_start):
        lo, hi = _statement(s, m)
        structural = from_to.get(id(m)) or _replacement(s, m, lo, hi)
        if structural is not None and structural[0] == Status.OLD and _labelled_current(s, m):
            structural = None  # "raise it from X (current) to Y": X is what holds now
        a, b = _segment(s, m, lo, hi)
        if all(t in _LIST_GLUE for t in [*s[a : m.start], *s[m.end : b]]):
            # An apposition ("The previous berth, X, has been retired"): the clause is around it,
            # unless a neighbouring clause holds another candidate (then it is a list).
            pa = _segment(s, _Mention("", "", a - 1, a - 1), lo, hi)[0] if a > lo else a
            nb = _segment(s, _Mention("", "", b + 1, b + 1), lo, hi)[1] if b < hi else b
            if not any(o is not m and pa <= o.start < nb for o in found):
                a, b = pa, nb
        prev_end = by_start[n - 1].end if n > 0 else a
        last = _noun_phrase_end(by_start, n)
        nxt = by_start[last + 1] if last + 1 < len(by_start) and by_start[last + 1].start < b else None
        before = list(s[max(a, prev_end) : m.start])
        after = list(s[by_start[last].end : nxt.start if nxt else b])
        if nxt is not None:  # "X not Y": the "not" right before Y is Y's
            negs = [i for i, t in enumerate(after) if t in _NEG]
            if negs and len(after) - negs[-1] <= 3:
                after = after[: negs[-1]]
        statement = list(s[lo:hi])
        segment = list(s[a:b])
        sentence_end = _bounds(s, m.start, {BREAK})[1]
        if sentence_end > 0 and s[sentence_end - 1] == QUESTION and not _question_is_the_value(s, m):
            m.status = Status.BACKGROUND  # "Pier 3? No, …", "Is it X?": asked about, not claimed
            m.cues.append(_ASKED)
            continue
        m.after_turn = lo > 0 and s[lo] in _TURN
        marked = _bracket_mark(s, m)
        if marked is not None:
            m.status, why = marked
            m.cues.append(why)
            m.commit = m.status == Status.NEW
            continue
        if structural is not None:
            m.status, why = structural
            m.cues.append(why)
            m.commit = m.status == Status.NEW
            continue
        # A list under one negation or one predicate: "not X, Y or Z", "X and Y are closed".
        glue_only = all(t in _LIST_GLUE for t in before)
        list_prev = by_start[n - 1] if n > 0 else None
        in_list = list_prev is not None and glue_only and _between_is_list(s, list_prev, m)
        if in_list and list_prev is not None and list_prev.status in (Status.DENIED, Status.OLD):
            m.status, m.inherited = list_prev.status, True
            m.cues.append("in a denied list")
            continue
        # "after X was withdrawn": a conjunction of time heads a clause whose subject is X (a
        # verb follows), unlike the preposition of "after 17:00"
        heads_clause = bool(before and after) and before[-1] in _AWAITING and after[0] in _BE | _HAVE
        governed = bool(before) and before[-1] in _PREPOSITIONS | _BOUND and not heads_clause
        nominal = any(ch.isdigit() or ch.isupper() for ch in m.value)
        neg_b, old_b = _cues_before(before, nominal)
        neg_a, old_a, deny_a = _cues_after(after, governed)
        olds = (
            old_b
            + old_a
            + int(_old_before(before, nominal, governed))
            + int(_past_perfect_state(before))
            + (_past_adverb_at_end(after) if governed else _old_after(after))
        )
        # "not … any more", "don't use X anymore": one mark of the past, the negation is part of it.
        ends = sum(1 for t in [*before, *after] if t == "anymore")
        absorbed = min(ends, neg_b + neg_a)
        take_a = min(absorbed, neg_a)
        neg_a -= take_a
        neg_b -= absorbed - take_a
        if _awaited(list(s[a : m.start]), after):
            # "resumes once 12.0.2 is out", "until Gate 9 reopens": the clause is an event to come
            # (English puts the future in the present tense there), not the value's state now; it
            # is a condition of what the answer says, like "if …"
            m.status = Status.BACKGROUND
            m.cues.append("a condition to come")
            continue
        if _opened_in_the_past(s, m):
            olds += 1  # "Before, the freeze was on Thursday; now …": the opener dates the clause
        if ends:
            olds = max(olds, 1)
        # Negations count by parity against what they negate ("X is not wrong", "X is not closed");
        # several marks of the past are still the past ("the previous X has been retired").
        count = neg_b + neg_a + int(olds > 0) + deny_a
        hedged = _hedged(segment)
        if count % 2 == 1:
            m.status = Status.OLD if olds and not (neg_b + deny_a) else Status.DENIED
            m.cues.append("named as old" if m.status == Status.OLD else "denied")
            continue
        continuity = any(_has(statement, p) for p in _CONTINUITY)
        if not continuity and any(t in _HABIT or t in _CONDITION for t in segment):
            m.status = Status.BACKGROUND
            m.cues.append("a contrast or condition")
            continue
        if m.role != "expected" and not governed:
            rest = list(s[m.end : nxt.start if nxt else hi])
            cut = next((i for i, w in enumerate(rest) if w in _SCOPE_END), len(rest))
            why_not = _withdrawn_rival(rest[:cut])
            if why_not:
                m.status = Status.OLD
                m.cues.append(why_not)
                continue
        m.status = Status.HEDGED if hedged else Status.ASSERTED
        # a cue of the present commits its own clause when the statement names other candidates
        # ("11:30 until 3 April, 14:00 since"): the whole sentence otherwise
        shared = any(o is not m and lo <= o.start < hi for o in found)
        m.commit = _commits(segment if shared else statement) and not neg_b
        if hedged:
            m.cues.append("hedged")
    # "not X, Y or Z": a denied mention whose list continues over commas passes its status on.
    for n in range(1, len(by_start)):
        m, prev = by_start[n], by_start[n - 1]
        if (
            m.status in OFFERED
            and not m.cues
            and prev.status == Status.DENIED
            and _between_is_list(s, prev, m)
        ) and _list_segment(s, m):
            m.status, m.inherited = Status.DENIED, True
            m.cues.append("in a denied list")


def _between_is_list(s: Sequence[str], first: _Mention, second: _Mention) -> bool:
    between = s[first.end : second.start]
    return all(t in _LIST_GLUE or t in {",", "(", ")"} for t in between) and BREAK not in between


def _list_segment(s: Sequence[str], m: _Mention) -> bool:
    """The mention's clause holds nothing but list glue besides candidates ("…, Y or Z")."""
    a = m.start
    while a > 0 and s[a - 1] not in SOFT_MARKS and s[a - 1] != BREAK:
        a -= 1
    b = m.end
    while b < len(s) and s[b] not in SOFT_MARKS and s[b] != BREAK:
        b += 1
    return all(t in _LIST_GLUE for t in s[a : m.start]) and len(s[m.end : b]) <= 4


def _joined_by_or(s: Sequence[str], x: _Mention, y: _Mention) -> bool:
    first, second = (x, y) if x.start < y.start else (y, x)
    between = s[first.end : second.start]
    return BREAK not in between and len(between) <= 6 and ("or" in between)


_NOT_A_RIVAL = _words("not so else otherwise later earlier whatever any more less both")
# Cue words that are also adjectives of a noun phrase ("their new release", "the old pier").
_ADJECTIVE_CUES = _words("new latest current old older former previous original outdated legacy")


def _alternative_end(s: Sequence[str], j: int, hi: int) -> int:
    """Where the alternative after "or" that starts at ``j`` ends (≤ 4 tokens): at a mark or a cue
    word, except an adjective cue inside the phrase ("or their new release" is one alternative;
    "or Y now" ends before "now")."""
    e = j
    while e < hi and e - j < 4 and s[e] not in MARKS:
        inside = (
            s[e] in _ADJECTIVE_CUES and e + 1 < hi and s[e + 1] not in MARKS and s[e + 1] not in _CUE_WORDS
        )
        if s[e] in _CUE_WORDS and not inside:
            break
        e += 1
    return e


def _disjuncts(s: Sequence[str], mine: list[_Mention], found: list[_Mention]) -> list[_Mention]:
    """The other side of a hedged disjunction, whatever its shape: in "either X or Y", "whether X
    or Y", "X, or maybe Y" the Y is a candidate offered beside X (a plain "X or Y" counts only
    when Y has X's shape, see ``_shape_candidates``). The hedge must be in the disjunction's own
    clauses: "labelled X or Y, he says the rest makes him guess" offers no candidates."""
    taken = [(m.start, m.end) for m in found]
    out: list[_Mention] = []
    skip = _HEDGE | {",", "perhaps", "maybe", "possibly"}
    for m in mine:
        lo, hi = _statement(s, m)
        sides = []
        k = m.end
        while k < hi and s[k] in {","}:
            k += 1
        if k < hi and s[k] == "or":
            j = k + 1
            while j < hi and s[j] in skip:
                j += 1
            sides.append((k, j, _alternative_end(s, j, hi)))
        k = m.start - 1
        while k > lo and s[k] in {",", "maybe", "perhaps", "possibly"}:
            k -= 1
        if k > lo and s[k] == "or":
            e = k
            while e > lo and s[e - 1] == ",":
                e -= 1
            j = e
            while j > lo and e - j < 4 and s[j - 1] not in MARKS and s[j - 1] not in _CUE_WORDS:
                j -= 1
            sides.append((k, j, e))
        for k, j, e in sides:
            a = min(j, m.start)
            while a > lo and s[a - 1] not in SOFT_MARKS:
                a -= 1
            b = max(e, m.end)
            while b < hi and s[b] not in SOFT_MARKS:
                b += 1
            clauses = s[a:b]
            if not (_hedged(clauses) or "whether" in clauses or _hedged(s[k + 1 : j])):
                continue
            if s[j : j + 1] == ("not",) or tuple(s[j : j + 1]) == ("not",):
                out.append(_Mention("shape", f"not {m.value}", m.start, m.end, Status.HEDGED))
                continue  # "X, or maybe not"
            words = [w for w in s[j:e] if w not in STOPWORDS]
            if not words or s[j] in _NOT_A_RIVAL or any(x < e and j < y for x, y in taken):
                continue
            out.append(_Mention("shape", " ".join(s[j:e]), j, e, Status.HEDGED))
    return out


# --- a leading answer -------------------------------------------------------------------------


def _sentences(s: Sequence[str]) -> list[tuple[int, int]]:
    out, start = [], 0
    for i, t in enumerate(s):
        if t == BREAK:
            out.append((start, i))
            start = i + 1
    if start < len(s):
        out.append((start, len(s)))
    return out


def _content_words(seq: Sequence[str]) -> list[str]:
    return [t for t in seq if t not in MARKS and t not in STOPWORDS]


def _after_the_lead(
    s: Sequence[str], found: list[_Mention], offered_mine: list[_Mention], rivals: list[_Mention]
) -> list[_Mention]:
    """The rivals that still compete once a leading answer has committed. An answer that opens
    with the expected value and no rival ("Book Fastway."), or gives it as an instruction or a
    bare phrase, has answered; a rival named only in later sentences whose predicate does not
    offer it as the answer ("The deal with Orbit Cargo ended in May.", "Field one is the project
    code.") is context. A later sentence that offers it again ("Or maybe Orbit Cargo.", "Actually,
    Orbit Cargo.", "Orbit Cargo.", "The carrier is Orbit Cargo.", "Either works.") keeps it a rival."""
    sentences = _sentences(s)

    def index(m: _Mention) -> int:
        return next(k for k, (a, b) in enumerate(sentences) if a <= m.start < b)

    def bare(k: int, m: _Mention) -> bool:
        a, b = sentences[k]
        return len(_content_words([*s[a : m.start], *s[m.end : b]])) <= 1

    def instruction(k: int, m: _Mention) -> bool:
        a, _ = sentences[k]
        return s[a] in _IMPERATIVE and m.start - a <= 4

    # a rival in the lead sentence spoils it; a capitalised word of a name's shape ("Ship with
    # Northline") is no rival unless it was offered as the alternative
    named = [
        m
        for m in found
        if (m.role in ("stale", "decoy") and m.status in OFFERED) or any(m is r for r in rivals)
    ]
    first = min((index(m) for m in found), default=None)
    lead = None
    for m in sorted(offered_mine, key=lambda m: m.start):
        k = index(m)
        a, b = sentences[k]
        if m.status == Status.HEDGED or _hedged(s[a:b]) or any(t in _REOFFER for t in s[a:b]):
            continue
        if any(o.role != "expected" and index(o) == k for o in named):
            continue
        if k == first or bare(k, m) or instruction(k, m):
            lead = k
            break
    if lead is None:
        return rivals
    later = sentences[lead + 1 :]
    if any(_hedged(s[a:b]) or any(t in _REOFFER for t in s[a:b]) for a, b in later):
        return rivals  # "… Either works.", "… Or maybe …": the answer reopens the question

    def offered_again(r: _Mention) -> bool:
        k = index(r)
        if k <= lead or r.status in (Status.HEDGED, Status.NEW) or r.commit:
            return True
        a, _ = sentences[k]
        window = s[max(a, r.start - 3) : r.start]
        # "the carrier is X", "it's X": the rival as the complement of a copula is a claim again;
        # so is a verb of choice right before it ("I'd go with X", "we should book X")
        complement = any(
            t in _BE or (t == "s" and i > 0 and window[i - 1] in _POINTING) for i, t in enumerate(window)
        )
        chosen = any(t in _IMPERATIVE for t in window)
        return bare(k, r) or instruction(k, r) or complement or chosen

    return [r for r in rivals if offered_again(r)]


# --- the verdict ----------------------------------------------------------------------------


def _quote(values: Sequence[str]) -> str:
    return ", ".join(repr(v) for v in dict.fromkeys(values))


def _role(m: _Mention) -> str:
    return {"stale": "superseded", "decoy": "decoy", "shape": "other", "expected": "expected"}[m.role]


def mention_statuses(text: str, value: str) -> list[tuple[tuple[int, int], bool]]:
    """Each occurrence of ``value`` in ``text`` and whether the text offers it as current."""
    found = _resolve_overlaps(_find(text, [value], "expected"))
    _read_mentions(text, found)
    # As in read_claim, a contrast or condition is what the text says when it says nothing else:
    # with one value and no rival, "normally X" / "if …, X" still states X.
    return [((m.start, m.end), m.status in OFFERED or m.status == Status.BACKGROUND) for m in found]


def declines(answer: str) -> bool:
    """The answer gives none: it is empty, or it says it cannot find, does not know or cannot
    help. Missing a value is not declining ("Filed." just omits it): scoring zeroes only a
    session whose text checks all read no_answer *and* whose answer declines."""
    d = doc(answer)
    if not [t for t in d.match if t not in MARKS]:
        return True
    return any(_has(d.surface, p) for p in _REFUSAL)


def read_claim(
    answer: str,
    expected: Sequence[str],
    stale: Sequence[str] = (),
    decoys: Sequence[str] = (),
    question: str = "",
) -> ClaimVerdict:
    """What ``answer`` claims about the gold value: ``expected`` = its accepted forms, ``stale`` =
    superseded values, ``decoys`` = wrong values; ``question`` optional (see module doc)."""
    expected = [e for e in expected if e.strip()]
    if not expected:
        raise ValueError("read_claim needs at least one expected form")
    name = expected[0]
    d = doc(answer)
    if not [t for t in d.match if t not in MARKS]:
        return ClaimVerdict(Reading.NO_ANSWER, f"missing {name!r} (empty answer)")
    forms = set(expected)
    stale = [v for v in stale if v not in forms]
    decoys = [v for v in decoys if v not in forms and v not in stale]
    listed = [
        *_find(answer, expected, "expected"),
        *_find(answer, stale, "stale"),
        *_find(answer, decoys, "decoy"),
    ]
    asking = questions_asked(question)  # once: the echo rules below both read it
    echoed = _echoed_sentences(d, asking)
    asked = question if question.strip() else ""
    shapes = [
        m
        for m in _shape_candidates(answer, expected)
        if not (asked and spans(asked, m.value))
        and normalise_for_match(m.value) not in {normalise_for_match(e) for e in expected}
    ]
    found = _resolve_overlaps([*listed, *shapes])
    asked_tokens = tuple(t.removeprefix(GLUE) for t in doc(asking).match if t not in MARKS) if asking else ()
    found = [
        m
        for m in found
        if not any(a <= m.start and m.end <= b for a, b in echoed)
        and not _echoes_question(d, m, asked_tokens)
    ]
    _read_mentions(answer, found)
    s = d.surface

    # Background (a contrast or condition) is what the answer says only when it offers nothing else.
    if not any(m.status in OFFERED for m in found if m.role != "shape"):
        for m in found:
            if m.status == Status.BACKGROUND and _ASKED not in m.cues:
                m.status = Status.ASSERTED
    mine = [m for m in found if m.role == "expected"]
    offered_mine = [m for m in mine if m.status in OFFERED]
    rivals = [m for m in found if m.role in ("stale", "decoy") and m.status in OFFERED]
    # A same-shape value competes only when offered as the alternative: hedged, or joined by "or".
    rivals += [
        m
        for m in found
        if m.role == "shape"
        and m.status in OFFERED
        and (
            m.status == Status.HEDGED
            or (not m.hedge_only and any(_joined_by_or(s, m, e) for e in offered_mine))
        )
        and offered_mine
    ]
    if not rivals:
        rivals += _disjuncts(s, offered_mine, found)
    if offered_mine and rivals:
        rivals = _after_the_lead(s, found, offered_mine, rivals)
    if offered_mine and not rivals:
        return ClaimVerdict(Reading.ASSERTS_EXPECTED, "", offered_mine[0].value)
    if offered_mine:
        pool = [*offered_mine, *rivals]
        hedged = any(m.status == Status.HEDGED for m in pool) or any(
            _joined_by_or(s, e, r) for e in offered_mine for r in rivals
        )
        committed = [m for m in pool if m.commit]
        turned = [m for m in pool if m.after_turn]
        if not hedged and turned and len({m.role == "expected" for m in turned}) == 1:
            # "X is still listed, but Y is correct": the clause after the turn is the claim.
            committed = [m for m in committed if m.after_turn] or turned
        mine_only = committed and all(m.role == "expected" for m in committed)
        if mine_only and (not hedged or all(m.status != Status.HEDGED for m in committed)):
            return ClaimVerdict(Reading.ASSERTS_EXPECTED, "commits to the expected value", name)
        if committed and all(m.role != "expected" for m in committed):
            other = committed[0]
            return ClaimVerdict(Reading.ASSERTS_OTHER, f"asserts {_role(other)} {other.value!r}", other.value)
        names = ", ".join([repr(name), *dict.fromkeys(f"{_role(r)} {r.value!r}" for r in rivals)])
        if hedged:
            return ClaimVerdict(Reading.HEDGES, f"hedges between {names}", None)
        return ClaimVerdict(
            Reading.UNDECIDED, f"undecided: both stand as claims, none committed: {names}", None
        )
    listed_rivals = [m for m in rivals if m.role != "shape"]
    if listed_rivals:
        kinds = {_role(m) for m in listed_rivals}
        kind = "superseded" if kinds == {"superseded"} else "decoy"
        values = [m.value for m in listed_rivals]
        return ClaimVerdict(Reading.ASSERTS_OTHER, f"asserts {kind} [{_quote(values)}]", values[0])
    if mine and all(m.cues == [_ASKED] for m in mine):
        return ClaimVerdict(Reading.NO_ANSWER, f"missing {name!r} (only asked about, never claimed)")
    if mine:
        why = sorted({c for m in mine for c in m.cues}) or ["not asserted"]
        return ClaimVerdict(Reading.DENIES, f"names {name!r} but does not assert it ({', '.join(why)})", name)
    if any(ambiguous_dates(answer, e) for e in expected):
        return ClaimVerdict(
            Reading.UNDECIDED, f"undecided: a numeric date that may be {name!r} (day/month order unknown)"
        )
    if any(_has(s, p) for p in _REFUSAL):
        return ClaimVerdict(Reading.NO_ANSWER, f"missing {name!r} (no answer given)")
    others = [m for m in found if m.role == "shape" and m.status in OFFERED]
    if others:
        return ClaimVerdict(
            Reading.ASSERTS_OTHER, f"missing {name!r}; asserts {others[0].value!r}", others[0].value
        )
    return ClaimVerdict(Reading.NO_ANSWER, f"missing {name!r}")


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    marked_old: bool


def mentions(text: str, value: str) -> list[Mention]:
    """Every occurrence of ``value`` in ``text`` with whether the answer does not assert it as
    current (denied, named as old or replaced, or a contrast: ``claims.py`` reads it)."""
    return [Mention(s, e, not offered) for (s, e), offered in mention_statuses(text, value)]
