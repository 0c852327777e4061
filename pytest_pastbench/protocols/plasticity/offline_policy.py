"""Offline reference behaviour for the plasticity protocol (routed here by ``offline_provider.py`` when the
offered tools include ``tool_run``): acting on text tasks and chess positions, and reflection.

Like the other reference policies it sees only the conversation and the tool list — the
feedback a train episode returned is in the reflection prompt; held-out answers are nowhere.

- ``blind`` never touches the inventory and proposes nothing: its curves stay flat.
- ``recall`` stores every feedback verbatim as a note and answers from the closest note: it
  reuses artifacts, but they hold old answers, not the rule ("used and still failed").
- ``curator`` turns each rule the feedback states into a note and an executable tool (checked on
  the train example it came from), and at task time runs the tool that covers the request. In
  chess it keeps a move-picker tool whose search features each reflection re-chooses by how well
  they follow the engine's feedback in the positions of its train games, which the tool carries.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Sequence
from typing import Any

from pytest_pastbench.core.text import content_words

from ..shared.replay import Emit, Policy, Replay, current_turn, runtime_reply

# What each offline reference model does with feedback, as a run says it beside a flat curve: the
# default model (recall) is built not to learn rules here, and a person seeing 0 0 0 0 should learn
# that from the run, not from this file. None: the model learns (curator).
OFFLINE_LEARNING: dict[str, str | None] = {
    "blind": "never writes to its inventory",
    "recall": "stores each feedback verbatim and answers from the closest note: its notes hold old "
    "answers, not the rule, so held-out tasks stay unsolved",
    "curator": None,
}
LEARNING_MODEL = "pastbench/curator"


def flat_curve_note(model: str) -> str | None:
    """Why an offline reference model's held-out curve is flat by design (None: not one of those)."""
    # lazy: the model client, only when a note is asked for
    from pytest_pastbench.models.client import OFFLINE_PREFIX, resolve_model

    resolved = resolve_model(model).model
    behaviour = (
        OFFLINE_LEARNING.get(resolved.removeprefix(OFFLINE_PREFIX))
        if resolved.startswith(OFFLINE_PREFIX)
        else None
    )
    if behaviour is None:
        return None
    return (
        f"{model} is an offline reference model that {behaviour}; its flat curve is by design. "
        f"The offline model that learns here: --pastbench-model={LEARNING_MODEL}"
    )


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
    "(an alpha-beta search whose features reflection chose from the engine's feedback)."
)
LESSON = re.compile(
    r"^- FEN (\S+ [wb] \S+ \S+ \d+ \d+): you played (\S+) .*?; the engine preferred ([a-h1-8qrbn]+)\.$", re.M
)
LEARNED_LINE = re.compile(r"^(CONFIG|LESSONS) = json\.loads\((.+)\)$", re.M)
MAX_CHESS_LESSONS = 40
CHESS_BASE: dict[str, Any] = {"centre": False, "depth": 1, "quiesce": False}
CHESS_FEATURES = ("quiesce", "centre", "depth")
CHESS_MAX_DEPTH = 2

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

CHESS_TOOL_TEMPLATE = '''import json
import re

import chess

# What reflection learned: the search features that best matched the engine's preferred moves in
# the positions of my train games it was checked against (LESSONS: [FEN, my move, the engine's]).
CONFIG = json.loads(__CONFIG__)
LESSONS = json.loads(__LESSONS__)
VALUES = {chess.PAWN: 100, chess.KNIGHT: 300, chess.BISHOP: 310, chess.ROOK: 500, chess.QUEEN: 900}
VALUES[chess.KING] = 0
CENTRE = {chess.D4: 20, chess.E4: 20, chess.D5: 20, chess.E5: 20}
CENTRE.update({chess.C3: 10, chess.F3: 10, chess.C6: 10, chess.F6: 10})
MATE = 100000


def evaluate(board):
    """Material (and centre control, once learned) for the side to move."""
    score = 0
    for square, piece in board.piece_map().items():
        value = VALUES[piece.piece_type]
        if CONFIG["centre"] and piece.piece_type in (chess.PAWN, chess.KNIGHT, chess.BISHOP):
            value += CENTRE.get(square, 0)
        score += value if piece.color == board.turn else -value
    return score


def ordered(board, moves):
    def gain(move):
        victim = board.piece_at(move.to_square)
        return -(VALUES[victim.piece_type] if victim else 0)

    return sorted(moves, key=lambda m: (gain(m), m.uci()))


def quiesce(board, alpha, beta, depth):
    stand = evaluate(board)
    if not CONFIG["quiesce"] or depth == 0 or stand >= beta:
        return stand
    alpha = max(alpha, stand)
    for move in ordered(board, [m for m in board.legal_moves if board.is_capture(m)]):
        board.push(move)
        score = -quiesce(board, -beta, -alpha, depth - 1)
        board.pop()
        if score >= beta:
            return score
        alpha = max(alpha, score)
    return alpha


def search(board, depth, alpha, beta):
    if board.is_checkmate():
        return -MATE
    if board.is_stalemate() or board.is_insufficient_material():
        return 0
    if depth == 0:
        return quiesce(board, alpha, beta, 4)
    best = -MATE - 1
    for move in ordered(board, list(board.legal_moves)):
        board.push(move)
        score = -search(board, depth - 1, -beta, -alpha)
        board.pop()
        best = max(best, score)
        alpha = max(alpha, score)
        if alpha >= beta:
            break
    return best


def run(task):
    """The move (UCI) my search prefers in the position the task's FEN describes."""
    found = re.search(r"[rnbqkpRNBQKP1-8/]+ [wb] [KQkq-]+ [a-h1-8-]+ \\d+ \\d+", task)
    board = chess.Board(found.group(0) if found else task.strip())
    best, best_score = None, None
    for move in ordered(board, list(board.legal_moves)):
        board.push(move)
        score = -search(board, CONFIG["depth"] - 1, -MATE - 1, MATE + 1)
        board.pop()
        if best_score is None or score > best_score:
            best, best_score = move, score
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
    if "Chess game " in prompt:
        outcomes.extend(_reflect_chess(prompt, CHESS_TOOL in existing, replay))
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


def chess_tool_code(config: dict[str, Any], lessons: Sequence[tuple[str, str, str]] = ()) -> str:
    def literal(value: Any) -> str:
        return repr(json.dumps(value, sort_keys=True))

    code = CHESS_TOOL_TEMPLATE.replace("__CONFIG__", literal(config))
    return code.replace("__LESSONS__", literal([list(lesson) for lesson in lessons]))


def chess_learned(code: str) -> tuple[dict[str, Any] | None, list[tuple[str, str, str]]]:
    """(configuration, lessons) a saved move picker carries; (None, []) if it is not one of mine."""
    learned: dict[str, Any] = {}
    for name, value in LEARNED_LINE.findall(code or ""):
        try:
            learned[name] = json.loads(ast.literal_eval(value))
        except (ValueError, SyntaxError):
            return None, []
    config = learned.get("CONFIG")
    if not isinstance(config, dict) or set(config) != set(CHESS_BASE):
        return None, []
    lessons = [tuple(map(str, lesson)) for lesson in learned.get("LESSONS", []) if len(lesson) == 3]
    return config, lessons


def chess_candidates(current: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The current picker (or the plain one) and each one-step extension of it, in a fixed order."""
    base = dict(current or CHESS_BASE)
    steps = [base]
    for feature in CHESS_FEATURES:
        if feature == "depth" and base["depth"] < CHESS_MAX_DEPTH:
            steps.append({**base, "depth": base["depth"] + 1})
        elif feature != "depth" and not base[feature]:
            steps.append({**base, feature: True})
    return steps


def agreement(config: dict[str, Any], lessons: list[tuple[str, str, str]]) -> int:
    """How well this picker follows the feedback: 2 points per position where it plays the
    engine's preferred move, 1 where it at least avoids the move that lost there."""
    namespace: dict[str, Any] = {}
    exec(compile(chess_tool_code(config), CHESS_TOOL, "exec"), namespace)  # noqa: S102 - my own code
    moves = [(namespace["run"](fen), played, preferred) for fen, played, preferred in lessons]
    return sum(2 if move == preferred else int(move != played) for move, played, preferred in moves)


def _reflect_chess(prompt: str, have_tool: bool, replay: Replay) -> list[str]:
    """Keep the move picker that best follows the engine's feedback (``agreement``) in every
    position of my train games so far — the ones the saved picker carries and this batch's: the
    current one, or one extension of it (one change per reflection)."""
    current, lessons = None, []
    if have_tool:
        read = replay.call("tool_read", {"name": CHESS_TOOL})
        current, lessons = chess_learned(str(read.get("code", ""))) if isinstance(read, dict) else (None, [])
    new = [lesson for lesson in LESSON.findall(prompt) if lesson not in lessons]
    lessons = [*lessons, *dict.fromkeys(new)][-MAX_CHESS_LESSONS:]
    if current is not None and not new:
        return []
    scored = [(agreement(c, lessons), -i, c) for i, c in enumerate(chess_candidates(current))]
    hits, _, chosen = max(scored, key=lambda item: item[:2])
    before = scored[0][0] if current is not None else 0
    learned = ", ".join(f"{k}={v}" for k, v in sorted(chosen.items()))
    examples = [{"input": lesson[0]} for lesson in new[:2]] or [{"input": INITIAL_FEN}]
    made = replay.batch(
        [
            (
                "propose_tool",
                {
                    "name": CHESS_TOOL,
                    "description": CHESS_TOOL_DESCRIPTION,
                    "code": chess_tool_code(chosen, lessons),
                    "examples": json.dumps(examples),
                },
            ),
            (
                "propose_note",
                {
                    "text": f"Chess move picker searches with {learned}: it follows the engine's feedback "
                    f"for {hits} points in the {len(lessons)} positions of my train games (2 per "
                    f"preferred move, 1 per avoided blunder; before: {before}).",
                    "tags": ["chess"],
                },
            ),
        ]
    )
    return [_outcome(result) for result in made]


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
