"""What the agent reads and writes on a stream: the ticket and feedback messages, and its answer.

The texts are plain enough for any model and regular enough for the offline reference policies
(offline_policy.py) to read the same facts back. The first line carries a marker, which
is how the offline provider recognises a stream conversation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .domains import Domain
from .generator import Task
from .rules import Rule

TICKET_MARKER = "[pastbench stream ticket]"
FEEDBACK_MARKER = "[pastbench stream feedback]"
FACTS_HEADER = "Facts:"
DOCUMENTED_HEADER = "Documented policy (the first matching line decides):"
ORACLE_HEADER = "Active rules not in the document (they override it; the first matching line decides):"
EXAMPLES_HEADER = "Similar past serving tickets (retrieved):"
OPTIONS_PREFIX = "Options:"
_ANSWER = re.compile(r"ANSWER:\s*([A-Za-z_:]+)")


def facts_line(task: Task) -> str:
    """``action=cancel; status=pending; ...``: one line, the form examples and notes use."""
    return "; ".join(f"{name}={value}" for name, value in task.facts.items())


def ticket_message(
    task: Task,
    domain: Domain,
    *,
    oracle_rules: Sequence[Rule] = (),
    examples: Sequence[str] = (),
) -> str:
    action = domain.actions[str(task.facts["action"])]
    kind = (
        "serving ticket: after you answer, a follow-up message gives its score"
        if task.phase == "serving"
        else "test ticket: no score is given"
    )
    lines = [
        f"{TICKET_MARKER} {domain.name} #{task.seq} {task.phase} {task.id}",
        f"You handle {domain.title}. This is a {kind}.",
        f"The customer asks to {action.request}.",
        FACTS_HEADER,
        *(f"- {name}: {value}" for name, value in task.facts.items()),
        DOCUMENTED_HEADER,
        *(f"- {rule.text()}" for rule in domain.documented if _is_for(rule, action.name)),
    ]
    if oracle_rules:
        lines += [ORACLE_HEADER, *(f"- {rule.text()}" for rule in oracle_rules if _is_for(rule, action.name))]
    else:
        lines.append(
            "Undisclosed rules of this environment may override the document and may change over time; "
            "only outcome scores reveal them."
        )
    if examples:
        lines += [EXAMPLES_HEADER, *(f"- {example}" for example in examples)]
    lines += [
        f"{OPTIONS_PREFIX} {' | '.join(task.options)}",
        "Reply with exactly one line: ANSWER: <option>",
    ]
    return "\n".join(lines)


def feedback_message(task: Task, domain: Domain, answer: str, score: int) -> str:
    """The outcome of a serving ticket: the answer given and its score (never the right answer),
    with the ticket quoted, since the agent reads it in a fresh conversation."""
    ticket = ticket_message(task, domain).splitlines()[1:]
    return "\n".join(
        [
            f"{FEEDBACK_MARKER} {domain.name} #{task.seq} {task.phase} {task.id}",
            f"Your answer to serving ticket {task.id} was: {answer or '(none)'}",
            f"Score: {score}/100",
            "Keep whatever will help you on later tickets, then reply OK.",
            "The ticket was:",
            *ticket,
        ]
    )


def example_line(task: Task, answer: str, score: int) -> str:
    """One retrieved past ticket (RAG harness): facts, the answer given and its score."""
    return f"#{task.seq} {facts_line(task)} | answered={answer or '(none)'} | score={score}"


def parse_answer(text: str, options: Sequence[str]) -> str:
    """The option the agent chose: the last ``ANSWER: x`` line, else a reply that is exactly an
    option; "" when there is none (scored 0, counted as unparsed)."""
    found = _ANSWER.findall(text or "")
    if found:
        return found[-1].strip().lower()
    bare = (text or "").strip().lower()
    return bare if bare in options else ""


def _is_for(rule: Rule, action: str) -> bool:
    return any(c.field == "action" and str(c.value) == action for c in rule.clauses)
