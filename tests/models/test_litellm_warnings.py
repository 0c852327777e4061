"""The one litellm warning silenced: pydantic's ReadOnly TypedDict notice, and nothing else."""

from __future__ import annotations

import warnings

from pytest_pastbench.models.litellm_warnings import silence_read_only_typeddict_warnings

NOTICE = "Item `x` on TypedDict class `ChatCompletionRequest` is using the `ReadOnly` qualifier"


def warn(message: str, module: str) -> list[warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        silence_read_only_typeddict_warnings()
        silence_read_only_typeddict_warnings()  # idempotent: one filter however often called
        warnings.warn_explicit(message, UserWarning, "x.py", 1, module=module)
        filters = [f for f in warnings.filters if f[0] == "ignore" and f[1] is not None]
    assert len([f for f in filters if "ReadOnly" in f[1].pattern]) == 1
    return caught


def test_pydantics_read_only_notice_is_silenced() -> None:
    assert warn(NOTICE, "pydantic._internal._generate_schema") == []
    assert (
        warn(NOTICE.replace("Item `x`", "Items `x`, `y`").replace(" is ", " are "), "pydantic._internal.x")
        == []
    )


def test_other_warnings_and_the_same_text_from_elsewhere_still_show() -> None:
    assert len(warn("Item `x` is deprecated", "pydantic._internal._generate_schema")) == 1
    assert len(warn(NOTICE, "litellm.main")) == 1
