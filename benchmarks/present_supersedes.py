"""Issue 29, item 2: does memory that is stale hurt? Δ of an honest agent and of a stale-trusting one.

Runs, in-process through ``tests/adversarial/harness.py`` (no pytest, no litellm), the honest
reference (``pastbench/curator`` on Hermes with every mechanism) and ``stale``, an adversary that
always trusts what it stored over newer evidence, on both arms of the families given (the two
present-supersedes families by default), and prints per family S_on, S_off, Δ and its 95%
bootstrap CI over scenario groups, as the run summary computes them (``metrics.build_summary``).

    python benchmarks/present_supersedes.py
    python benchmarks/present_supersedes.py families/update/SM03_fact_correction.yaml

``stale`` is the curator policy with one change: once its memory answered (it recalled notes),
a world record or a statement of the user that contradicts a recalled note (the curator's own
test, ``_superseded_by``) is dropped, and the ticket it opens takes its queue, priority and
assignee from its notes before the request. Where memory says nothing it does the present work
like the curator, so on the off arm (an empty store) it is the curator. It asserts nothing: the
figures are for the issue's target (stale Δ < 0 with the CI below 0, honest Δ > 0).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tabulate import tabulate  # noqa: E402

from pytest_pastbench.agents.base import HermesAgent  # noqa: E402
from pytest_pastbench.core.family_files import load_family  # noqa: E402
from pytest_pastbench.core.text import content_words, sentences  # noqa: E402
from pytest_pastbench.models.client import ModelReply  # noqa: E402
from pytest_pastbench.models.direct import PolicyModel  # noqa: E402
from pytest_pastbench.protocols.past import offline_policy as op  # noqa: E402
from pytest_pastbench.protocols.past.metrics import build_summary  # noqa: E402
from tests.adversarial.harness import CONTESTANTS, run_contestant  # noqa: E402

DEFAULT = (
    "families/update/SM08_present_overrides_store.yaml",
    "families/procedural/PC05_revised_procedure.yaml",
)


def _contradicts(record: op.Record, recalled: list[str]) -> bool:
    return any(op._superseded_by(note, [record]) is not None for note in recalled)


def _ticket_from_notes(user_text: str, context: str) -> dict[str, Any]:
    """The curator's ticket, but queue, priority and assignee come from the notes first."""
    args: dict[str, Any] = {"title": sentences(user_text)[0][:100], "body": context[:1500]}
    for key, pattern in (("queue", op.QUEUE), ("priority", op.PRIORITY), ("assignee", op.HANDLE)):
        found = pattern.search(context) or pattern.search(user_text)
        if found:
            args[key] = found.group(0)
    return args


def _stale_plan(policy: op.Policy, turn: op.Turn, replay: op.Replay, tools: op.OfferedTools) -> str:
    user_text = turn.user_text
    query = " ".join(content_words(user_text))
    memory_hits = op.note_entries(replay.call("memory_search", {"query": query})) if query else []
    if turn.offered_skills is not None:
        skill_hits = turn.offered_skills
    else:
        skill_hits = op.note_entries(replay.call("skill_search", {"query": query})) if query else []
    recalled = [h["text"] for h in skill_hits[:1]] + [h["text"] for h in memory_hits]
    archive_doc = op._consult_archive(user_text, recalled, replay)
    records = op._consult_world(user_text, replay, archive_doc)
    if archive_doc is not None:
        records.insert(
            0, op.Record(f"the archived document {archive_doc.get('id')}", str(archive_doc["body"]))
        )
    # Trust the store: what the present says against a note is left out, the user's too.
    kept = [r for r in records if not _contradicts(r, recalled)]
    said = [s for s in sentences(user_text) if not _contradicts(op.Record("you", s), recalled)]
    request = " ".join(said) or user_text
    if turn.gated:
        done = [p for p in turn.draft.split("\n\n") if p.startswith(op.ACTION_NOTES)]
        return op._compose_answer(recalled, None, done, op.POLICIES["recall"], kept, request)
    notes: list[str] = []
    context = "\n".join([*recalled, *(r.text for r in kept)])
    if op.TICKET_REQUEST.search(user_text) and replay.has("tickets_create"):
        result = replay.call("tickets_create", _ticket_from_notes(request, context))
        if op.is_held(result):
            shown = op._held_texts(result)
            result = replay.call("tickets_create", _ticket_from_notes(request, "\n".join([*shown, context])))
        notes.append(f"Opened ticket: {op.json.dumps(result)}")
    elif op.DEPLOY_REQUEST.search(user_text):
        notes = op._act(policy, request, recalled, None, replay, kept)
    op.store_statements(policy, user_text, memory_hits, replay, tools)
    # recall's composition: notes and the kept records side by side, nothing named outdated.
    return op._compose_answer(recalled, None, notes, op.POLICIES["recall"], kept, request)


class StaleModel:
    """A model that always applies what it stored and ignores newer evidence against it."""

    model = "pastbench/stale"
    policy = op.Policy("stale", uses_store=True, curates=True)

    def complete(self, messages: list[dict[str, Any]], tools: Any, **params: Any) -> ModelReply:
        turn = op.current_turn(messages)
        available = op.offered_tools(tools or [])
        replay = op.Replay(turn.done, set(available.names))
        try:
            if turn.closing:
                answer = op._close_pass(self.policy, turn, replay, available)
            else:
                answer = _stale_plan(self.policy, turn, replay, available)
        except op.Emit as emit:
            calls = [
                {"id": f"call_{len(messages)}_{i}", "name": n, "arguments": op.json.dumps(a)}
                for i, (n, a) in enumerate(emit.calls)
            ]
            return ModelReply(content=None, tool_calls=calls)
        return ModelReply(content=answer)


CONTESTANTS.setdefault("stale", lambda f, e: (HermesAgent(mechanisms=["all"]), StaleModel()))
_ = PolicyModel  # the honest reference is the harness's curator+hermes-plus


def main(paths: list[str]) -> int:
    families = [load_family(Path(p))[0] for p in (paths or DEFAULT)]
    rows = []
    for name in ("curator+hermes-plus", "stale"):
        result = run_contestant(name, families=families)
        summary = build_summary(result.records, {"trials": 1}, seed=0)
        for fid, entry in summary["configs"][0]["families"].items():
            low, high = entry["delta_ci"] or (None, None)
            rows.append(
                [name, fid, f"{entry['s_on']:.2f}", f"{entry['s_off']:.2f}", f"{entry['delta']:+.2f}",
                 f"[{low:+.2f}, {high:+.2f}]" if low is not None else "—"]
            )  # fmt: skip
    print(tabulate(rows, headers=["agent", "family", "S_on", "S_off", "Δ", "95% CI"], disable_numparse=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
