"""Every error class of pytest-pastbench, in one module.

The modules that raise them import them from here (so ``models.InfraError`` and the like still
resolve). Which outcome an error becomes is part of its contract: an infra error makes an item
``infra_blocked`` with its message as the reason, never a score of 0; a tool error is an
``ok=False`` call the agent sees. Misuse is pytest's own ``pytest.UsageError``, raised before
anything runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

# --- Collection and items --------------------------------------------------------------------------------


class ItemInfraError(Exception):
    """The item could not be measured (infra_blocked); its reason is the message."""


class BelowThreshold(AssertionError):
    """An item scored under its pass threshold: a test failure that says what the score lost to."""

    def __init__(self, score: float | None, threshold: float, why: str = "") -> None:
        text = f"score {score if score is None else f'{score:.3f}'} < pass threshold {threshold}"
        super().__init__(f"{text}; lost to: {why}" if why else text)


class InvalidFamily(Exception):
    """A family file that does not load; the message names the file and the field path."""


class FamilyFileError(Exception):
    """A family file is malformed; the message names the file and the field path."""


class StoppedBeforeStart(Exception):
    """The run was stopping (``-x``, ``--maxfail``, Ctrl-C) before this item started."""


class RunStopped(Exception):
    """The run was interrupted (Ctrl-C) while this item's sessions were still running: the item
    has no result (it is not a score and not an infra failure) and a resumed run measures it."""


class ShardSpecError(ValueError):
    """A ``K/N`` value that is not a shard; the message says how to write one."""


# --- Models, gateway, cache, judge -----------------------------------------------------------------------


class InfraError(RuntimeError):
    """The harness could not get an answer (provider down after retries, bad key, harness bug).

    Items that hit it are errors with ``infra_blocked`` and this message, never a score of 0.
    ``retries`` counts the transient errors retried before giving up (for the ledger).
    """

    def __init__(self, message: str, retries: int = 0) -> None:
        super().__init__(message)
        self.retries = retries


class WallBackstop(InfraError):
    """A session ran past its wall-clock budget (``--pastbench-session-timeout``). Wall time
    moves with the machine's load and the provider's queue, so the session is not scored: the
    item is ``infra_blocked`` with this reason. Budgets that count (tool calls) are scores."""


class Unsupported(ValueError):
    """A request this gateway cannot serve faithfully: a 400 naming the endpoint and what works."""

    def __init__(self, path: str, what: str, supported: list[str] | tuple[str, ...]) -> None:
        super().__init__(f"POST {path} does not support {what} (supported: {', '.join(supported)})")


class CacheMiss(LookupError):
    """Replay mode found no stored response for a request."""


class JudgeError(Exception):
    """The judge could not give a verdict (garbage reply, refusal, unparsable output).

    A rubric check whose judge raises this is recorded as ``judge_error``: left out of c_e,
    counted and flagged, never a silent fail and never a pass.
    """


class LabelError(ValueError):
    """A labels file that cannot be used; the message names the file and line."""


class NotAJudgePrompt(ValueError):
    """The conversation holds no rubric/answer blocks: this model only grades judge prompts."""


# --- Agents, tools and the world -------------------------------------------------------------------------


class ToolError(Exception):
    """Raised inside dispatch; becomes an ``ok=False`` call and an error message to the agent."""


class StoreError(ValueError):
    """A store operation the agent asked for cannot be done; reported to it as a tool error."""


class WorldError(ValueError):
    """A world tool was called with something the service refuses; a tool error to the agent."""


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot run here; the message says why and what to install or change."""


class MechanismError(ValueError):
    """A mechanism list that names something other than E1..E5."""


class ProtocolViolation(ValueError):
    """A line from the agent that is not a valid ``pastbench-agent/1`` message."""


class AgentFailure(Exception):
    """The external program misbehaved: the session scores 0 with this message as the reason."""


class SessionTimeout(Exception):
    """The session's wall-clock budget ran out."""


# --- Protocols -------------------------------------------------------------------------------------------


class EditRejected(ValueError):
    """An edit failed its structural or executable check; the message is the reason."""


class FitError(ValueError):
    """The curve cannot be fitted; the message says why."""


class EngineMissing(InfraError):
    """The chess engine is not installed on this machine (a set-up gap, not a failed run)."""


# --- Results ---------------------------------------------------------------------------------------------


class RunLoadError(Exception):
    """A path is not a readable run; the message says which file and why."""


class MergeError(Exception):
    """The runs cannot be merged; the message names the runs and the difference."""


class BaselineError(Exception):
    """A baseline cannot be saved or found; the message says what was looked for and where."""


class GateSyntaxError(ValueError):
    """A gate expression does not parse; the message shows the accepted syntax."""


class PlotError(ValueError):
    """The run cannot be plotted (e.g. its summary has no configs); the message says why."""


class ProviderExhausted(Exception):
    """The provider answered only 429 for a sustained stretch: this attempt was not sent."""

    def __init__(self, in_a_row: int) -> None:
        super().__init__(f"provider answered only 429 ({in_a_row} in a row)")
        self.in_a_row = in_a_row


# ServeLearnBench's published dataset (protocols/stream/servelearn)
class UnknownTool(KeyError):
    """The agent called a tool the scenario does not offer."""


class ToolFailure(Exception):
    """A tool's own refusal; its message becomes the ``Error: ...`` observation."""


class ReplayError(Exception):
    """The evaluator's ground truth does not replay on our environment."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


class ScenarioUnreadable(Exception):
    """One file of a ServeLearnBench scenario could not be read (file, line, problem)."""

    def __init__(self, file: Path, problem: str, line: int | None = None) -> None:
        super().__init__(problem)
        self.file, self.problem, self.line = file, problem, line
