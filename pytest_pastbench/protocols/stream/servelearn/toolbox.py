"""One ServeLearnBench episode's tool box: argument checks against ``tools.json``, then the handler."""

from __future__ import annotations

from typing import Any

from ....errors import ToolFailure, UnknownTool
from . import retail
from .banking import reason_codes, reason_error
from .env import FINISH, Handler, argument_error, document_sections, read_docs, tool_schemas
from .schema import Scenario


class ToolBox:
    """One episode's tools over its own copy of the world: checks arguments, then calls a handler."""

    def __init__(self, scenario: Scenario, handlers: dict[str, Handler], state: dict[str, Any]) -> None:
        self.specs = tool_schemas(scenario)
        if scenario.domain == "retail":  # the store's mechanics depend on the scenario (tier, date)
            handlers = {**handlers, **retail.handlers(state, retail.mechanics_of(scenario))}
        self.handlers = handlers
        self.state = state
        docs = {name: document_sections(scenario, name) for name in ("policy", "workflow")}
        self.handlers.setdefault("read_docs", lambda doc, section=None: read_docs(docs, doc, section))
        self.reason_codes = reason_codes(scenario) if scenario.domain == "banking" else None

    def call(self, name: str, args: dict[str, Any]) -> str:
        if name == FINISH or name not in self.specs:
            raise UnknownTool(name)
        problem = argument_error(self.specs[name], args)
        if problem is None and self.reason_codes is not None:
            problem = reason_error(self.reason_codes, name, args)
        if problem:
            return f"Error: {problem}"
        handler = self.handlers.get(name)
        if handler is None:
            return f"Error: {name} is not available in this environment"
        try:
            return handler(**args)
        except ToolFailure as exc:
            return f"Error: {exc}"
