"""The summary section (trials pooled per config × event × profile) and the terminal matrix."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_pastbench.protocols.intervention.metrics import summarize
from pytest_pastbench.protocols.intervention.report import render


def record(
    profile: str, trial: int, z: list[int], sigma: dict[str, list[bool]], rho: tuple[int, int], **extra: Any
) -> dict[str, Any]:
    return {
        "nodeid": f"f.yaml::e[{profile}-t{trial}]",
        "protocol": "intervention",
        "family": "intervention.tiny",
        "episode": "e",
        "event": "e",
        "event_kind": "schema_change",
        "domain": "analytics",
        "profile": profile,
        "model": "pastbench/recall",
        "agent": "hermes",
        "config_label": "hermes@pastbench/recall",
        "trial": trial,
        "infra_blocked": False,
        "alpha": {
            "alpha_l": next((i + 1 for i in range(len(z) - 1) if z[i] and z[i + 1]), len(z) + 1),
            "m": 2,
            "T": len(z),
            "z": z,
        },
        "gamma": {
            "opportunities": [{"acknowledges": True, "no_unsupported_claim": True, "next_step": bool(trial)}]
        },
        "sigma": {"checks": sigma},
        "kappa": {"tau": 0.5, "checks": {"mean": [1.0, float(trial)], "note": [0.0, 1.0]}},
        "rho": {"k": rho[0], "n": rho[1]},
        "propagation": {"broken": ["query:q"] if rho[0] else []},
        **extra,
    }


def test_trials_are_pooled_per_cell() -> None:
    records = [
        record("light", 0, [1, 1, 1], {"s": [True, True]}, (0, 2)),
        record("power", 0, [0, 0, 0], {"s": [False, False]}, (2, 3)),
        record("power", 1, [0, 1, 1], {"s": [False, True]}, (1, 3)),
    ]
    section = summarize(records, seed=0)
    [config] = section["configs"]
    cells = config["matrix"]["intervention.tiny"]["e"]
    assert cells["kind"] == "schema_change"
    power = cells["profiles"]["power"]
    assert power["n"] == 2 and power["alpha_l_trials"] == [4, 2] and power["alpha_l"] == 3.0
    assert power["rho"]["k"] == 3 and power["rho"]["n"] == 6 and power["rho"]["rho"] == 0.5
    assert power["sigma"]["s_pre"] == 0.0 and power["sigma"]["ratio"] is None
    assert power["gamma"]["gamma"] == 0.5
    assert power["kappa"]["included"] == ["mean"] and power["kappa"]["kappa"] == pytest.approx(0.5)
    assert power["kappa"]["excluded"] == ["note"]
    assert power["broken"] == ["query:q"]
    assert set(section["definitions"]) == {"alpha_l", "gamma", "sigma", "kappa", "rho"}


def test_render_shows_the_matrix_with_n_a_and_the_denominator() -> None:
    records = [
        record("light", 0, [1, 1], {"s": [True, True]}, (0, 2)),
        record("power", 0, [0, 0], {"s": [False, False]}, (2, 3)),
    ]
    text = render(summarize(records, seed=0))
    assert "hermes@pastbench/recall" in text
    light = next(line for line in text.splitlines() if " light " in line)
    power = next(line for line in text.splitlines() if " power " in line)
    assert "tiny/e" in power and "3 (2,2)" in power and "0.00→0.00 (N/A)" in power
    assert "0.67 [0.21, 0.94] (2/3)" in power
    assert "1 (2,2)" in light and "(0/2)" in light


def test_a_blocked_item_keeps_its_cell() -> None:
    blocked = {**record("light", 0, [1], {}, (0, 0)), "infra_blocked": True}
    section = summarize([blocked], seed=0)
    cell = section["configs"][0]["matrix"]["intervention.tiny"]["e"]["profiles"]["light"]
    assert cell == {"n": 0, "blocked": 1}
    assert "light" in render(section)
