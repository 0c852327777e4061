"""PAST's gate metrics (``BenchProtocol.gate_metrics``): per config × scope (overall, each
capability, each family) Δ, Mech, S_on, S_off and Mech's components; with the families an overall
or capability value is the mean of, and the paired episodes a gate bootstraps Δ, S_on and S_off
over. The gate engine itself is protocol-neutral (results/gates.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..base import GateMetric
from .components import COMPONENTS, GATE_METRICS

# pr is the share of polluted live entries: for it a rise is the regression.
LOWER_IS_BETTER = frozenset({"pr"})
# The metrics with a value per episode: (s_on, s_off) of one episode -> its value, None if unscored.
EPISODE_VALUES: dict[str, Callable[[float | None, float | None], float | None]] = {
    "delta": lambda on, off: None if on is None or off is None else on - off,
    "s_on": lambda on, off: on,
    "s_off": lambda on, off: off,
}

Units = dict[str, dict[str, float]]


def _capability(family: str, entry: Mapping[str, Any]) -> str:
    return entry.get("capability") or family.partition(".")[0]


def config_scopes(config: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any], list[str] | None]]:
    """(scope, summary entry, the families its values are means over; None for a family itself)."""
    families = config.get("families", {})
    members: dict[str, list[str]] = {}
    for family, entry in sorted(families.items()):
        members.setdefault(_capability(family, entry), []).append(family)
    scopes: list[tuple[str, Mapping[str, Any], list[str] | None]] = [
        ("overall", config["overall"], sorted(families))
    ]
    scopes += [(cap, entry, members.get(cap, [])) for cap, entry in sorted(config["capabilities"].items())]
    scopes += [(family, entry, None) for family, entry in sorted(families.items())]
    return scopes


def _value(entry: Mapping[str, Any], name: str) -> float | None:
    source = entry.get("mech_components") or {} if name in COMPONENTS else entry
    return source.get(name)


def gate_metrics(summary: Mapping[str, Any]) -> list[GateMetric]:
    """Every gate metric of every config in a summary (Δ with its own CI)."""
    metrics = []
    for config in summary.get("configs") or []:
        families = config.get("families", {})
        for scope, entry, members in config_scopes(config):
            for name in GATE_METRICS:
                ci = entry.get("delta_ci") if name == "delta" else None
                strata = None if members is None else {f: _value(families[f], name) for f in members}
                metrics.append(
                    GateMetric(
                        "past", config["label"], scope, name, _value(entry, name),
                        tuple(ci) if ci else None, name not in LOWER_IS_BETTER, strata=strata,
                    )
                )  # fmt: skip
    return metrics


def episode_units(
    summary: Mapping[str, Any], episodes: Mapping[str, Mapping[str, Mapping[str, Sequence[Any]]]]
) -> dict[tuple[str, str, str], Units]:
    """(config, scope, metric) -> family -> episode -> value, for Δ, S_on and S_off: the paired
    units of a gate's noise estimate (``episodes``: label -> family -> episode -> (s_on, s_off))."""
    units: dict[tuple[str, str, str], Units] = {}
    for config in summary.get("configs") or []:
        scored = episodes.get(config["label"], {})
        for scope, _, members in config_scopes(config):
            families = [scope] if members is None else members
            for name, value_of in EPISODE_VALUES.items():
                units[(config["label"], scope, name)] = {
                    family: {
                        episode: value
                        for episode, pair in sorted(scored[family].items())
                        if (value := value_of(pair[0], pair[1])) is not None
                    }
                    for family in families
                    if family in scored
                }
    return units


def scope_problem(scope: str, scopes: Sequence[str]) -> str:
    """Why a config has no ``scope``: the families or capabilities it has (and a qualified id
    for a bare family name)."""
    families = sorted(s for s in scopes if "." in s)
    if "." in scope:
        return f"no family {scope!r} (families: {', '.join(families) or 'none'})"
    if scope == "overall":
        return "no overall entry"
    capabilities = sorted(s for s in scopes if "." not in s and s != "overall")
    hint = [family for family in families if family.partition(".")[2] == scope]
    suggestion = f"; did you mean {hint[0]}?" if hint else ""
    return f"no capability {scope!r} (capabilities: {', '.join(capabilities) or 'none'}){suggestion}"
