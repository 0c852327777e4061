"""Offline reference behaviour for the plasticity protocol (routed here by ``provider.py`` when the
offered tools include ``tool_run``): acting on text tasks and chess positions, and reflection.

Like the other reference policies it sees only the conversation and the tool list — the
feedback a train episode returned is in the reflection prompt; held-out answers are nowhere.

- ``blind`` never touches the inventory and proposes nothing: its curves stay flat.
- ``recall`` stores every feedback verbatim as a note and answers from the closest note: it
  reuses artifacts, but they hold old answers, not the rule ("used and still failed").
- ``curator`` turns each rule the feedback states into a note and an executable tool (checked on
  the train example it came from), and at task time runs the tool that covers the request.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pytest_pastbench.core.text import content_words

from ..past.offline_policy import Emit, Policy, Replay, current_turn, runtime_reply

RULE = re.compile(
    r"Rule \((?P<topic>[^)]+)\): answer = (?P<expr>.+?), with (?P<inputs>[a-z0-9_, ]+) given in this order"
)
EPISODE = re.compile(r"^### Episode (?P<id>\S+)\n(?P<body>.*?)(?=^### Episode |\Z)", re.MULTILINE | re.DOTALL)
EXPECTED = re.compile(r"Expected answer: (-?\d+(?:\.\d+)?)")
NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
FEN = re.compile(r"FEN:? ([rnbqkpRNBQKP1-8/]+ [wb] [KQkq-]+ [a-h1-8-]+ \d+ \d+)")
LEGAL = re.compile(r"Legal moves \(UCI\): (.*)")
CHESS_TOOL = "chess_move_picker"
INITIAL_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
CHESS_TOOL_DESCRIPTION = (
    "Chess move picker for my chess games: give it the FEN, it returns a UCI move "
    "(mate in one, else the move that keeps the most material against the best reply)."
)

TEXT_TOOL_TEMPLATE = '''import re

INPUTS = {inputs!r}


def run(task):
    """{topic}: answer = {expr}; the request gives {names} in this order."""
    numbers = [float(x.replace(",", "")) for x in re.findall(r"-?\\d[\\d,]*(?:\\.\\d+)?", task)]
    if len(numbers) < len(INPUTS):
        raise ValueError("expected %d numbers in the request" % len(INPUTS))
    values = dict(zip(INPUTS, numbers))
{assignments}
    return "%.2f" % ({expr})
'''

CHESS_TOOL_CODE = '''import re

import chess

VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 0}


def material(board, colour):
    return sum(len(board.pieces(piece, colour)) * value for piece, value in VALUES.items())


def run(task):
    """Chess move picker: mate in one, else the move whose worst reply keeps the most material."""
    found = re.search(r"[rnbqkpRNBQKP1-8/]+ [wb] [KQkq-]+ [a-h1-8-]+ \\d+ \\d+", task)
    board = chess.Board(found.group(0) if found else task.strip())
    me = board.turn
    best, best_score = None, None
    for move in sorted(board.legal_moves, key=lambda m: m.uci()):
        board.push(move)
        if board.is_checkmate():
            board.pop()
            return move.uci()
        worst = None
        for reply in board.legal_moves:
            board.push(reply)
            score = -1000 if board.is_checkmate() else material(board, me) - material(board, not me)
            board.pop()
            worst = score if worst is None else min(worst, score)
        board.pop()
        worst = 0 if worst is None else worst
        if best_score is None or worst > best_score:
            best, best_score = move, worst
    return best.uci()
'''


def handles(tool_names: set[str]) -> bool:
    """A plasticity session: the artifact tools are on offer."""
    return "tool_run" in tool_names


def decide(policy: Policy, messages: list[dict[str, Any]], tool_names: set[str]) -> dict[str, Any]:
    turn = current_turn(messages)
    user_text, done = turn.user_text, turn.done
    reply = runtime_reply(turn)
    if reply is not None:
        return {"content": reply}
    replay = Replay(done, tool_names)
    try:
        if "propose_tool" in tool_names:
            answer = _reflect(policy, user_text, replay)
        elif FEN.search(user_text):
            answer = _chess_move(policy, user_text, replay)
        else:
            answer = _text_answer(policy, user_text, replay)
    except Emit as emit:
        return {"tool_calls": emit.calls}
    return {"content": answer}


# -- acting ------------------------------------------------------------------------------------


def _covering_tool(request: str, replay: Replay) -> str | None:
    """The saved tool whose name and description share the most words with the request."""
    listed = replay.call("tool_list", {})
    words = set(content_words(request))
    best, best_overlap = None, 0
    for tool in listed if isinstance(listed, list) else []:
        if not isinstance(tool, dict):
            continue
        overlap = len(
            words
            & set(content_words(f"{tool.get('name', '')} {tool.get('description', '')}".replace("_", " ")))
        )
        if overlap > best_overlap:
            best, best_overlap = str(tool.get("name")), overlap
    return best


def _guess(request: str) -> str:
    numbers = NUMBER.findall(request)
    return f"My estimate: {numbers[0] if numbers else 0}"


def _text_answer(policy: Policy, request: str, replay: Replay) -> str:
    if not policy.uses_store:
        return _guess(request)
    if policy.curates:
        name = _covering_tool(request, replay)
        if name:
            result = replay.call("tool_run", {"name": name, "input": request})
            if isinstance(result, dict) and "output" in result:
                return f"Using my {name} tool: {result['output']}"
        return _guess(request)
    hits = replay.call("memory_search", {"query": " ".join(content_words(request))})
    for hit in hits if isinstance(hits, list) else []:
        found = EXPECTED.search(str(hit.get("text", ""))) if isinstance(hit, dict) else None
        if found:
            return f"From my notes: {found.group(1)}"
    return _guess(request)


def _chess_move(policy: Policy, prompt: str, replay: Replay) -> str:
    legal_line = LEGAL.search(prompt)
    legal = legal_line.group(1).split() if legal_line else []
    fallback = legal[0] if legal else "0000"
    if not policy.uses_store:
        return fallback
    if policy.curates:
        name = _covering_tool(prompt, replay)
        if name:
            fen = FEN.search(prompt)
            result = replay.call("tool_run", {"name": name, "input": fen.group(1) if fen else prompt})
            move = str(result.get("output", "")).strip() if isinstance(result, dict) else ""
            if move in legal:
                return move
        return fallback
    replay.call("memory_search", {"query": "chess game move"})
    return fallback


# -- reflection -------------------------------------------------------------------------------


def _episodes(prompt: str) -> list[tuple[str, str]]:
    return [(m.group("id"), m.group("body")) for m in EPISODE.finditer(prompt)]


def _reflect(policy: Policy, prompt: str, replay: Replay) -> str:
    if not policy.uses_store:
        return "No changes."
    episodes = _episodes(prompt)
    if not policy.curates:
        # recall keeps every episode's feedback verbatim: answers, not rules.
        made = replay.batch([("propose_note", {"text": body.strip()[:3000]}) for _, body in episodes])
        return f"Saved {len(made)} notes."
    listed = replay.call("tool_list", {})
    existing = (
        {str(t.get("name")) for t in listed if isinstance(t, dict)} if isinstance(listed, list) else set()
    )
    outcomes: list[str] = []
    if "Chess game " in prompt and CHESS_TOOL not in existing:
        fen = FEN.search(prompt)
        example = [{"input": fen.group(1) if fen else INITIAL_FEN}]
        outcomes.append(
            _outcome(
                replay.call(
                    "propose_tool",
                    {
                        "name": CHESS_TOOL,
                        "description": CHESS_TOOL_DESCRIPTION,
                        "code": CHESS_TOOL_CODE,
                        "examples": json.dumps(example),
                    },
                )
            )
        )
    for topic, expr, inputs, request, expected in _rules(episodes):
        name = re.sub(r"[^a-z0-9]+", "_", topic.lower()).strip("_")[:48]
        if name in existing:
            continue
        existing.add(name)
        names = [n.strip() for n in inputs.split(",") if n.strip()]
        note = f"Rule for {topic}: answer = {expr}; the request gives {', '.join(names)} in this order."
        outcomes.append(_outcome(replay.call("propose_note", {"text": note, "tags": content_words(topic)})))
        code = TEXT_TOOL_TEMPLATE.format(
            inputs=names,
            topic=topic,
            expr=expr,
            names=", ".join(names),
            assignments="\n".join(f"    {n} = values[{n!r}]" for n in names),
        )
        example = {"input": request, "expected": expected}
        description = (
            f"Computes {topic}: answer = {expr} (reads {', '.join(names)} from the request, in order)."
        )
        outcomes.append(
            _outcome(
                replay.call(
                    "propose_tool",
                    {
                        "name": name,
                        "description": description,
                        "code": code,
                        "examples": json.dumps([example]),
                    },
                )
            )
        )
    return "Proposed: " + ("; ".join(outcomes) if outcomes else "nothing new")


def _rules(episodes: list[tuple[str, str]]) -> list[tuple[str, str, str, str, str]]:
    """(topic, expression, inputs, request, expected) for each rule the feedback states, first seen first."""
    found: dict[str, tuple[str, str, str, str, str]] = {}
    for _, body in episodes:
        rule = RULE.search(body)
        expected = EXPECTED.search(body)
        request = re.search(r"Request: (.*?)\nYour answer:", body, re.DOTALL)
        if rule and expected and request and rule.group("topic") not in found:
            found[rule.group("topic")] = (
                rule.group("topic"),
                rule.group("expr"),
                rule.group("inputs"),
                request.group(1).strip(),
                expected.group(1),
            )
    return list(found.values())


def _outcome(result: Any) -> str:
    return str(result.get("accepted")) if isinstance(result, dict) and "accepted" in result else "rejected"
