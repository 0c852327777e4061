"""The stdio MCP bridge refuses to start without the session's server address and token.
(tests/agents/external/test_mcp_server.py calls tools through it.)"""

from __future__ import annotations

import pytest

from pytest_pastbench.agents.external import mcp_stdio


@pytest.mark.parametrize(
    "env", [{}, {mcp_stdio.URL_ENV: "http://127.0.0.1:1/mcp"}, {mcp_stdio.TOKEN_ENV: "t"}]
)
def test_without_url_and_token_it_exits_2_naming_both(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in (mcp_stdio.URL_ENV, mcp_stdio.TOKEN_ENV):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert mcp_stdio.main() == 2
    assert capsys.readouterr().err.strip() == (
        f"pastbench mcp_stdio: {mcp_stdio.URL_ENV} and {mcp_stdio.TOKEN_ENV} must be set"
    )
