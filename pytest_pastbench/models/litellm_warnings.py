"""The one warning of litellm's that pastbench silences, and why there and not per call.

litellm declares TypedDicts with ``ReadOnly`` items; pydantic warns (``UserWarning``, one per
class) each time it builds a schema over one: at litellm's import and its first calls, from
whichever thread does them. Nothing here mutates those dicts, so the warning tells a user nothing.

It was silenced with ``warnings.catch_warnings()`` around each call. That is not thread-safe:
``--pastbench-concurrency``'s item threads saved and restored the process's filters over each
other, and on Ctrl-C, once pytest's own capture had ended while a thread was still importing
litellm, 15-51 of them reached the terminal. One filter for exactly this message, installed
once for the process (at pytest_sessionstart, outside pytest's warning contexts, which copy the
filters when they start and restore them when they end), cannot race.
"""

from __future__ import annotations

import warnings

READ_ONLY_ITEMS = r"Items? .* on TypedDict class .* (is|are) using the `ReadOnly` qualifier"


def silence_read_only_typeddict_warnings() -> None:
    """Ignore pydantic's ``ReadOnly`` TypedDict warning (only it); idempotent."""
    warnings.filterwarnings(
        "ignore", message=READ_ONLY_ITEMS, category=UserWarning, module=r"pydantic\._internal\."
    )
