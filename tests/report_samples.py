"""Summaries in the shape the protocols write (their ``summarize`` output, trimmed to what the
report reads), with 1 to 8 configs and labels as long as a command line: the inputs of the
figure and page tests."""

from __future__ import annotations

from typing import Any

LONG = "hermes@pastbench/recall --pastbench-mechanisms=E1,E2,E3,E4,E5 --pastbench-persistence=all"


def label(i: int, long: bool = True) -> str:
    if not long:
        return f"hermes@pastbench/m{i}"
    return LONG if i == 0 else f"hermes@pastbench/curator --pastbench-mechanisms=E{i} --pastbench-trials={i}"


def _scope(delta: float, width: float, mech: float) -> dict[str, Any]:
    return {
        "n_episodes": 4,
        "s_on": 0.5 + delta / 2,
        "s_off": 0.5 - delta / 2,
        "delta": delta,
        "delta_ci": [round(delta - width, 4), round(delta + width, 4)],
        "mech": mech,
        "infra_blocked": 0,
    }


def past_configs(n: int, long: bool = True) -> list[dict[str, Any]]:
    configs = []
    for i in range(n):
        delta = 0.8 if n == 1 else round(0.6 - 0.17 * i, 2)
        width = 0.0 if n == 1 else 0.05 * (i % 3)  # zero-width CIs included
        configs.append(
            {
                "label": label(i, long),
                "model": "pastbench/recall",
                "agent": "hermes",
                "mechanisms": ["E1", "E2"],
                "overall": _scope(delta, width, 0.9 - 0.05 * i),
                "capabilities": {
                    "memory": _scope(delta + 0.1, width, 0.8),
                    "update": _scope(delta - 0.1, width, 0.7),
                },
                "families": {"memory.fam": {"capability": "memory", **_scope(delta, width, 0.8)}},
            }
        )
    return configs


def _cell(i: int, j: int) -> dict[str, Any]:
    return {
        "n": 1,
        "blocked": 0,
        "alpha_l": float(1 + (i + j) % 5),
        "m": 2,
        "T": 4,
        "gamma": {"gamma": (i % 3) / 2, "k": i % 3, "n": 2, "ci": [0.1, 0.9], "judge_errors": 0},
        "sigma": {"s_pre": 1.0, "s_post": 0.5, "ratio": 0.5 if j else None},
        "kappa": {"kappa": 1.0, "tau": 0.5, "included": ["a"], "excluded": []},
        "rho": {"rho": j / 4, "k": j, "n": 4, "ci": [0.0, 0.6]},
        "broken": [],
    }


def intervention_section(n: int, long: bool = True) -> dict[str, Any]:
    configs = []
    for i in range(n):
        matrix = {
            f"intervention.{family}": {
                event: {
                    "kind": "schema_change",
                    "domain": family,
                    "profiles": {p: _cell(i, j) for j, p in enumerate(("light", "middle", "power"))},
                }
                for event in ("first_event", "second_event")
            }
            for family in ("analytics", "scheduling")
        }
        configs.append({"label": label(i, long), "model": "m", "agent": "hermes", "matrix": matrix})
    return {"configs": configs, "definitions": {}}


def plasticity_section(n: int, long: bool = True) -> dict[str, Any]:
    families = {}
    for family in ("plasticity.ops_rules", "plasticity.chess"):
        lineages = {}
        for i in range(n):
            rise = 80 - 9 * i
            lineages[f"{label(i, long)}[on-t0]"] = {
                "curves": {
                    split: [{"x": c, "y": min(100.0, scale * rise * c / 3)} for c in range(4)]
                    for split, scale in (("id", 1.0), ("ood", 0.6), ("train", 1.1))
                }
            }
        families[family] = {"lineages": lineages, "blocked": 0, "plot": None}
    return {"families": families, "blocked": 0}


def stream_section(n: int, long: bool = True) -> dict[str, Any]:
    configs = []
    for i in range(n):
        windows = [
            {"window": w, "streams": 6, "hidden": 12.0 + 15 * w - i, "fully": 95.0 - i} for w in range(4)
        ]
        configs.append(
            {
                "label": f"own · {label(i, long)}",
                "harness": "own",
                "overall": {
                    "hidden": 30.0,
                    "fully": 90.0,
                    "serving_hidden": 25.0,
                    "aulc10": 40.0,
                    "exploration_auc": 1.2,
                    "ka5": None,
                    "forgetting": 10.0,
                    "tokens_per_task": 400.0,
                    "cost_per_task": 0.0,
                    "n_items": 6,
                    "infra_blocked": 0,
                },
                "tiers": {"L1": {"hidden": 30.0, "fully": 90.0}},
                "streams": {"retail.L1": {"hidden": 30.0, "fully": 90.0, "n": 1}},
                "windows": windows,
            }
        )
    return {"schema_version": 1, "seed": 0, "configs": configs}


SECTIONS = {"intervention": intervention_section, "plasticity": plasticity_section, "stream": stream_section}


def sample_summary(
    n: int, long: bool = True, protocols: tuple[str, ...] = ("past", *SECTIONS)
) -> dict[str, Any]:
    summary: dict[str, Any] = {"schema_version": 1, "run": {"id": "sample", "seed": 0}}
    summary["configs"] = past_configs(n, long) if "past" in protocols else []
    sections = {name: SECTIONS[name](n, long) for name in protocols if name in SECTIONS}
    if sections:
        summary["protocols"] = dict(sorted(sections.items()))
    return summary
