"""The run object is reached through the config's stash, under one key."""

from __future__ import annotations

import pytest

from pytest_pastbench.plugin.run_handle import RUN_KEY, pastbench_run


def test_the_run_is_the_object_stashed_on_the_config_and_absent_is_a_key_error(
    pytester: pytest.Pytester,
) -> None:
    config = pytester.parseconfig("-p", "no:pastbench")
    with pytest.raises(KeyError):
        pastbench_run(config)
    run = object()
    config.stash[RUN_KEY] = run  # type: ignore[assignment]
    assert pastbench_run(config) is run
