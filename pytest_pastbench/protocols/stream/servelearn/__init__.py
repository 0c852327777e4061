"""ServeLearnBench's published dataset, run to its authors' documented semantics as items of the
stream protocol (which claims a download's scenarios: ``collect``). It is a source of stream
items, not a protocol: its records are summarized and gated with the generated streams'
(``stream/metrics.py``), so it has no metrics or report of its own. Its roles keep the protocols'
names (``engine.run``, ``offline_policy.decide``, ``toolbox.ToolBox``):

- ``schema``: the published layout (``data/<scenario>/*.jsonl``, ``environments/<scenario>/``)
  read into typed models, one error per broken scenario naming the file and the line;
- ``retail``, ``banking``, ``pitch``: the three environments and their grading;
- ``engine``: their turn rules and budgets (``EpisodeRules``) and the stream of windows;
- ``session``: each task one session of the run's agent through the project's session runner;
- ``scoring``: the feedback line, the Oracle context, setting scores, Avg. H / Avg. F;
- ``leaderboard``: the authors' leaderboard CSV, the ``published`` column;
- ``replay``: the audit agent that replays the evaluator's ground truth, and
  ``validate_servelearn`` over a download.

The ``evaluator`` field of a task is scoring-only: nothing here hands it to an agent or a learner.
"""

from __future__ import annotations

from .replay import ValidationReport, validate_servelearn
from .schema import ReadResult, Scenario, ScenarioError, Task, read_servelearn

__all__ = [
    "ReadResult",
    "Scenario",
    "ScenarioError",
    "Task",
    "ValidationReport",
    "read_servelearn",
    "validate_servelearn",
]
