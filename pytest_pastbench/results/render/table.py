"""The Δ table: its rows and number formats (shared by terminal, Markdown, HTML and comparisons)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabulate import tabulate

HEADERS = ("family", "capability", "n", "S_on", "S_off", "Δ [95% CI]", "Δ_c", "Mech", "σ✗ on/off", "blocked")
# With the ablated arm: S_ablated and Δ_causal = S_on − S_ablated after Δ_c, σ✗ for three arms.
ABLATED_HEADERS = (*HEADERS[:7], "S_abl", "Δ_causal [95% CI]", "Mech", "σ✗ on/off/abl", "blocked")


def format_number(value: Any, signed: bool = False, digits: int = 2) -> str:
    """``digits`` decimals (two by default); "—" for anything that is not a number (N/A,
    missing, blocked)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return "—"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def format_delta(entry: Mapping[str, Any] | None, key: str = "delta") -> str:
    """``+0.25 [+0.10, +0.40]``: Δ (or ``key``, e.g. ``delta_causal``) with its 95% CI when there is one."""
    if entry is None:
        return "—"
    text = format_number(entry.get(key), signed=True)
    ci = entry.get(f"{key}_ci")
    if isinstance(ci, list | tuple) and len(ci) == 2 and entry.get(key) is not None:
        text += f" [{format_number(ci[0], True)}, {format_number(ci[1], True)}]"
    return text


def delta_rows(config: Mapping[str, Any]) -> list[tuple[str, str, Mapping[str, Any]]]:
    """(name, capability, entry): families by capability, then capabilities, then overall."""
    families = sorted(config.get("families", {}).items(), key=lambda kv: (kv[1].get("capability", ""), kv[0]))
    rows = [(fid, entry.get("capability", ""), entry) for fid, entry in families]
    rows += [(f"[{name}]", name, entry) for name, entry in sorted(config.get("capabilities", {}).items())]
    rows.append(("[overall]", "all", config.get("overall", {})))
    return rows


# Marks a row whose Δ CI lies wholly below 0: the store made the agent worse than no store there
# (issue 29; the paper's Agent-Zero, Δ −0.08). Terminal, Markdown and HTML use the same words.
HURT_MARK = " ▼"
HURT_TEXT = "memory hurt here"
HURT_NOTE = (
    f"▼ {HURT_TEXT}: the Δ 95% CI lies wholly below 0 (the agent did worse with its store than without)"
)


def memory_hurt(entry: Mapping[str, Any] | None, key: str = "delta") -> bool:
    """Did memory make this row worse: Δ below 0 with its whole 95% CI below 0? A Δ below 0 with a
    CI that reaches 0 is not marked (it may be noise)."""
    if not entry:
        return False
    ci = entry.get(f"{key}_ci")
    value = entry.get(key)
    numbers = isinstance(ci, list | tuple) and len(ci) == 2 and all(isinstance(x, int | float) for x in ci)
    return bool(numbers and isinstance(value, int | float) and value < 0 and max(ci) < 0)  # type: ignore[arg-type]


# Marks a row whose rubric checks were graded by their deterministic fallback (no judge configured).
FALLBACK_MARK = " †"
FALLBACK_NOTE = "† rubric checks graded by their deterministic fallback (no judge configured)"
# Marks a row with text checks the deterministic grader could not decide (claims.py: no credit).
UNDECIDED_MARK = " ‡"


def undecided_note(count: int) -> str:
    return (
        f"‡ {count} text check(s) undecided by the deterministic grader (no credit given; "
        "a judge, --pastbench-judge-model, decides them)"
    )


def row_marks(entry: Mapping[str, Any], hurt: bool = True) -> str:
    """† / ‡ / ▼ after a row's name: fallback-graded rubrics, undecided text checks, a Δ whose CI
    lies below 0 (memory hurt here; ``hurt=False`` where the row says so itself, as the HTML badge)."""
    return (
        (FALLBACK_MARK if entry.get("rubric_fallback") else "")
        + (UNDECIDED_MARK if entry.get("undecided") else "")
        + (HURT_MARK if hurt and memory_hurt(entry) else "")
    )


def has_ablated(config: Mapping[str, Any]) -> bool:
    """Did this config run the ablated arm (so its table shows S_abl and Δ_causal)?"""
    return config.get("overall", {}).get("s_ablated") is not None


def delta_headers(config: Mapping[str, Any]) -> tuple[str, ...]:
    return ABLATED_HEADERS if has_ablated(config) else HEADERS


def format_violations(entry: Mapping[str, Any], arms: tuple[str, ...]) -> str:
    """``1/0``: eval sessions with σ = 0 per arm (on/off[/ablated])."""
    counts = entry.get("sigma_violations") or {}
    return "/".join(str(counts.get(arm, "—")) for arm in arms)


def delta_cells(name: str, capability: str, entry: Mapping[str, Any], ablated: bool = False) -> list[str]:
    causal = [format_number(entry.get("s_ablated")), format_delta(entry, "delta_causal")] if ablated else []
    arms = ("on", "off", "ablated") if ablated else ("on", "off")
    return [
        name + row_marks(entry),
        capability,
        str(entry.get("n_episodes", 0)),
        format_number(entry.get("s_on")),
        format_number(entry.get("s_off")),
        format_delta(entry) + (f" {HURT_TEXT}" if memory_hurt(entry) else ""),
        format_number(entry.get("delta_c"), signed=True),
        *causal,
        format_number(entry.get("mech")),
        format_violations(entry, arms),
        str(entry.get("infra_blocked", 0)),
    ]


ONE_TRIAL_NOTE = (
    "One trial: the CI excludes run-to-run variance (--pastbench-trials=3 or more puts it inside; "
    "docs/ci.md)."
)


def ci_basis(overall: Mapping[str, Any]) -> str | None:
    """What a config's CIs are taken over, from its summary (``ci_unit``, ``n_clusters``): the one
    sentence the terminal, the HTML page and the CI summary all print. None: no CI unit recorded."""
    unit = overall.get("ci_unit")
    if unit == "group":
        return f"paired bootstrap over {overall.get('n_clusters')} scenario groups"
    if unit == "episode":
        return "paired bootstrap over episodes (no `group` field in these families)"
    if unit is not None:
        return "paired bootstrap over scenario groups, and over episodes where a family has none"
    return None


def config_notes(config: Mapping[str, Any]) -> list[str]:
    """What the table's numbers rest on: the bootstrap's unit, pass^k with trials, rubric
    checks graded by their fallback, and text checks the deterministic grader left undecided."""
    overall = config.get("overall", {})
    basis = ci_basis(overall)
    trials = overall.get("trials")
    notes = []
    unpaired = overall.get("n_unpaired")
    if basis is not None and overall.get("delta") is None:
        # No episode has both arms (an early Ctrl-C, an on-only run): no Δ, so no CI to describe.
        one_arm = (
            f" ({unpaired} measured on one arm only); S_on and S_off are each arm's own mean"
            if unpaired
            else ""
        )
        notes.append(f"No Δ: no episode was measured on both arms{one_arm}.")
    elif overall.get("delta_ci") is None and basis is not None:
        # No family had two paired units (``stats.estimates_noise``): the table shows Δ alone.
        unit = {"group": "scenario group", "episode": "episode"}.get(overall.get("ci_unit"), "unit")
        notes.append(
            f"No 95% CIs: one paired {unit} per family is too few paired units for a noise estimate."
        )
    elif basis is not None:
        notes.append(f"95% CIs: {basis}.")
        if not trials:
            notes.append(ONE_TRIAL_NOTE)
        else:
            sd = overall.get("delta_trial_sd")
            spread = "" if sd is None else f"; SD of Δ between trials {format_number(sd)}"
            notes.append(
                f"The CIs resample the {trials['k']} trials within each episode too (run-to-run variance "
                f"included){spread}."
            )
    if trials:
        pass_k = ", ".join(f"{a} {format_number(v)}" for a, v in trials["pass_k"].items())
        spread = ", ".join(
            f"{a} mean {format_number(v.get('mean'))} max {format_number(v.get('max'))}"
            for a, v in trials["spread"].items()
        )
        notes.append(f"pass^{trials['k']} (score ≥ {trials['threshold']:.2f}): {pass_k}.")
        notes.append(f"Per-episode spread over trials (max − min): {spread}.")
    if unpaired and overall.get("delta") is not None:
        notes.append(
            f"{unpaired} episode(s) measured on one arm only are left out of S_on, S_off and Δ "
            "(each is the mean over the episodes both arms measured)."
        )
    if overall.get("rubric_fallback"):
        notes.append(FALLBACK_NOTE)
    hurt = [name for name, _, entry in delta_rows(config) if memory_hurt(entry)]
    if hurt:
        notes.append(f"{HURT_NOTE}: {', '.join(hurt)}.")
    if overall.get("undecided"):
        notes.append(undecided_note(overall["undecided"]))
    return notes


def agent_error_line(summary: Mapping[str, Any]) -> str | None:
    """The summary run block's ``agent_errors`` in words: ``18 sessions agent_error (first: …;
    …)``, or None when there was none."""
    errors = (summary.get("run") or {}).get("agent_errors") or {}
    if not errors.get("sessions"):
        return None
    noun = "session" if errors["sessions"] == 1 else "sessions"
    return f"{errors['sessions']} {noun} agent_error (first: {'; '.join(errors['first'])})"


def render_delta_table(summary: Mapping[str, Any]) -> str:
    blocks = []
    for config in summary.get("configs", []):
        ablated = has_ablated(config)
        rows = [delta_cells(*row, ablated=ablated) for row in delta_rows(config)]
        table = tabulate(rows, headers=delta_headers(config), tablefmt="simple", disable_numparse=True)
        blocks.append("\n".join([config["label"], table, *config_notes(config)]))
    return "\n\n".join(blocks)


ABLATION_HEADERS = (
    "config",
    "mechanisms",
    "overall Δ",
    "update Δ",
    "Mech",
    "prompt tok/episode",
    "wall s/episode",
)


def render_ablation_table(rows: list[Mapping[str, Any]]) -> str:
    """The mechanism ablation (rows from ``summary.ablation_rows``), as the paper prints it."""
    cells = [
        [
            row["label"],
            ",".join(row["mechanisms"]) or "none",
            format_number(row.get("delta"), signed=True),
            format_number(row.get("update_delta"), signed=True),
            format_number(row.get("mech")),
            _whole(row.get("prompt_tokens_per_episode")),
            format_number(row.get("wall_s_per_episode")),
        ]
        for row in rows
    ]
    return tabulate(cells, headers=ABLATION_HEADERS, tablefmt="simple", disable_numparse=True)


def _whole(value: Any) -> str:
    return f"{value:.0f}" if isinstance(value, int | float) and not isinstance(value, bool) else "—"
