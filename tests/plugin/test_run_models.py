"""Ctrl-C stops the sessions in flight at their next model call (``RunModels.stop``), and the
run's client stays usable by everything that unwraps it (an external agent's gateway scope)."""

from __future__ import annotations

import threading

import pytest

from pytest_pastbench.agents.session_runner import MeteredModel
from pytest_pastbench.errors import RunStopped
from pytest_pastbench.models.gateway import ModelService, ServiceClient, agent_scope
from pytest_pastbench.plugin.run_models import _Stoppable

MESSAGES = [{"role": "user", "content": "hello"}]


def test_a_stopped_run_refuses_the_next_model_call() -> None:
    stopped = threading.Event()
    client = _Stoppable(ServiceClient(ModelService(), "pastbench/blind"), stopped)
    assert client.complete(MESSAGES, None).content is not None
    stopped.set()
    with pytest.raises(RunStopped):
        client.complete(MESSAGES, None)


def test_an_external_agent_s_scope_reaches_the_service_through_the_run_s_wrappers() -> None:
    """The session's meter around the stoppable run client around the service client: the
    gateway scope finds the service (it said "_Stoppable is not one" and blocked every item)."""
    client = MeteredModel(_Stoppable(ServiceClient(ModelService(), "pastbench/blind"), threading.Event()))
    with agent_scope(client) as scope:
        assert scope.token and scope.model == "pastbench/blind"


def test_ctrl_c_while_the_run_is_set_up_stops_it_without_an_internal_error(pytester: pytest.Pytester) -> None:
    """A Ctrl-C that lands in an import at configure, inside a pydantic model class, comes out
    as ``RuntimeError: Error calling __set_name__ …`` (its cause the KeyboardInterrupt): it is
    still an interrupt (exit 2, pytest's one line), not an INTERNALERROR traceback (exit 3)."""
    pytester.makeconftest(
        """
        import pytest_pastbench.plugin.preflight as preflight

        def interrupted_in_an_import(config):
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt as exc:
                raise RuntimeError("Error calling __set_name__ on 'PydanticDescriptorProxy'") from exc

        preflight.check_run_setup = interrupted_in_an_import
        """
    )
    result = pytester.runpytest_subprocess("--pastbench-model=pastbench/recall")
    assert result.ret == pytest.ExitCode.INTERRUPTED, result.stderr.str()
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    # pytest itself says nothing for an interrupt at configure: one line says what happened
    result.stderr.fnmatch_lines(["pastbench: interrupted before any item finished: nothing measured*"])
