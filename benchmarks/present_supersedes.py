"""Issue 29, item 2: does memory that is stale hurt? Δ of an honest agent and of a stale-trusting one.

Runs, in-process through ``tests/adversarial/harness.py`` (no pytest, no litellm), the honest
reference (``pastbench/curator`` on Hermes with every mechanism) and ``stale_trust``, the
adversary of tests/adversarial/agents.py that applies what it stored over newer evidence (its
answer and its tickets), on both arms of the families given (every built-in PAST family by
default), and prints two tables (``tests/adversarial/present_supersedes.py`` defines both sets):

1. per family, over its sessions where the present supersedes the store: the sessions, their
   scenario groups, Δ and its 95% bootstrap CI (the groups resampled), and "memory hurt here" where
   that CI lies below 0 (the reports' rule) and is a figure of its own (at least
   ``MEANINGFUL_GROUPS`` groups);
2. the present-led families (such sessions outnumber those the store alone decides) as the run
   summary reports them: S_on, S_off, Δ, CI, and "memory hurt here" where the CI lies below 0.

It asserts nothing (tests/adversarial/test_stale_trust.py does).

    python benchmarks/present_supersedes.py
    python benchmarks/present_supersedes.py families/update/SM08_present_overrides_store.yaml
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tabulate import tabulate  # noqa: E402

from pytest_pastbench.core.stats import paired_bootstrap_ci  # noqa: E402
from pytest_pastbench.models.offline_models import use_protocols  # noqa: E402
from pytest_pastbench.protocols.past.family_files import load_family  # noqa: E402
from pytest_pastbench.protocols.standalone import standalone_registry  # noqa: E402
from pytest_pastbench.results.render.table import memory_hurt  # noqa: E402
from tests.adversarial.harness import past_families, run_contestant  # noqa: E402
from tests.adversarial.present_supersedes import (  # noqa: E402
    HONEST,
    delta,
    meaningful,
    present_led_families,
    session_pairs,
    summary_families,
    supersede_sessions,
)


def _ci(ci: tuple[float, float] | list[float] | None) -> str:
    return f"[{ci[0]:+.2f}, {ci[1]:+.2f}]" if ci else "—"


def main(paths: list[str]) -> int:
    use_protocols(standalone_registry)  # an entry point: its offline models are the built-in protocols
    families = [load_family(Path(p))[0] for p in paths] if paths else past_families()
    where = supersede_sessions(families)
    led = present_led_families(families)
    chosen = [f for f in families if any(w[0] == f.qualified_id for w in where)]
    runs = {name: run_contestant(name, families=chosen) for name in (HONEST, "stale_trust")}
    sessions, whole = [], []
    for name, result in runs.items():
        pairs, labels = session_pairs(result, where)
        for family, p in sorted(pairs.items()):
            ci = paired_bootstrap_ci({family: p}, seed=0, clusters={family: labels[family]})
            hurt = meaningful(labels[family]) and memory_hurt({"delta": delta(p), "delta_ci": ci})
            groups = str(len(set(labels[family])))
            row = [
                name,
                family,
                str(len(p)),
                groups,
                f"{delta(p):+.2f}",
                _ci(ci),
                "memory hurt here" if hurt else "",
            ]
            sessions.append(row)
        pooled = paired_bootstrap_ci(pairs, seed=0, clusters=labels)
        total = sum(len(p) for p in pairs.values())
        sessions.append([name, "all (each family one stratum)", str(total), "", "", _ci(pooled), ""])
        summary = summary_families(result)
        for family in sorted(led):
            entry = summary[family]
            whole.append(
                [name, family, f"{entry['s_on']:.2f}", f"{entry['s_off']:.2f}", f"{entry['delta']:+.2f}",
                 _ci(entry["delta_ci"]), "memory hurt here" if memory_hurt(entry) else ""]
            )  # fmt: skip
    print("Sessions where the present supersedes the store, per family")
    headers = ["agent", "family", "sessions", "groups", "Δ", "95% CI", ""]
    print(tabulate(sessions, headers=headers, disable_numparse=True))
    print("\nPresent-led families, whole family (the run summary)")
    print(
        tabulate(
            whole, headers=["agent", "family", "S_on", "S_off", "Δ", "95% CI", ""], disable_numparse=True
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
