"""The Δ table's columns and the lines under it (shared by the terminal and Markdown renderers)."""

from __future__ import annotations

from pytest_pastbench.results.render.table import config_notes, render_delta_table

ENTRY = {
    "s_on": 0.9,
    "s_off": 0.2,
    "delta": 0.7,
    "delta_ci": [0.6, 0.8],
    "delta_c": 0.75,
    "mech": 0.8,
    "sigma_violations": {"on": 2, "off": 0},
    "n_episodes": 3,
    "infra_blocked": 0,
    "ci_unit": "episode",
    "n_clusters": 3,
}


def config(**overall: object) -> dict:
    return {"label": "hermes@m", "overall": {**ENTRY, **overall}, "capabilities": {}, "families": {}}


def test_the_table_shows_delta_c_and_sigma_violations_and_says_the_bootstrap_unit() -> None:
    text = render_delta_table({"configs": [config()]})
    header, _, overall, note, one_trial = text.splitlines()[1:]
    assert " ".join(header.split()) == "family capability n S_on S_off Δ [95% CI] Δ_c Mech σ✗ on/off blocked"
    assert " ".join(overall.split()) == "[overall] all 3 0.90 0.20 +0.70 [+0.60, +0.80] +0.75 0.80 2/0 0"
    assert note == "95% CIs: paired bootstrap over episodes (no `group` field in these families)."
    assert one_trial.startswith("One trial: the CI excludes run-to-run variance (--pastbench-trials=3")


def test_notes_name_the_groups_and_pass_hat_k_with_trials() -> None:
    trials = {
        "k": 3,
        "threshold": 0.5,
        "pass_k": {"on": 0.5, "off": 0.0},
        "spread": {"on": {"mean": 0.4, "max": 0.7}, "off": {"mean": 0.0, "max": 0.0}},
    }
    assert config_notes(config(ci_unit="group", n_clusters=79, trials=trials, delta_trial_sd=0.05)) == [
        "95% CIs: paired bootstrap over 79 scenario groups.",
        "The CIs resample the 3 trials within each episode too (run-to-run variance included); "
        "SD of Δ between trials 0.05.",
        "pass^3 (score ≥ 0.50): on 0.50, off 0.00.",
        "Per-episode spread over trials (max − min): on mean 0.40 max 0.70, off mean 0.00 max 0.00.",
    ]
    assert config_notes(config(ci_unit="mixed"))[0].endswith("over episodes where a family has none.")


def test_a_run_with_no_paired_episode_says_so_and_counts_the_unpaired_ones() -> None:
    # An early Ctrl-C (only on items finished) or an on-only run: no Δ, so no CI to describe.
    unpaired = config(s_off=None, delta=None, delta_ci=None, delta_c=None, n_clusters=0, n_unpaired=16)
    assert config_notes(unpaired) == [
        "No Δ: no episode was measured on both arms (16 measured on one arm only); "
        "S_on and S_off are each arm's own mean."
    ]


def test_a_row_whose_delta_ci_lies_below_zero_is_marked_memory_hurt() -> None:
    from pytest_pastbench.results.render.ci_summary import render_markdown
    from pytest_pastbench.results.render.table import HURT_TEXT, memory_hurt

    hurt = {
        **ENTRY,
        "capability": "update",
        "s_on": 0.2,
        "s_off": 0.5,
        "delta": -0.3,
        "delta_ci": [-0.4, -0.2],
    }
    noisy = {**hurt, "delta": -0.1, "delta_ci": [-0.3, 0.1]}  # below 0, but the CI reaches 0
    cfg = {**config(), "families": {"update.stale": hurt, "update.noisy": noisy}}
    assert memory_hurt(hurt) and not memory_hurt(noisy) and not memory_hurt(ENTRY)
    lines = render_delta_table({"configs": [cfg]}).splitlines()
    stale = next(line for line in lines if line.startswith("update.stale"))
    assert stale.startswith("update.stale ▼") and f"-0.30 [-0.40, -0.20] {HURT_TEXT}" in stale
    assert HURT_TEXT not in next(line for line in lines if line.startswith("update.noisy"))
    assert lines[-1].startswith("▼ memory hurt here: the Δ 95% CI lies wholly below 0")
    assert lines[-1].endswith(": update.stale.")
    markdown = render_markdown({"configs": [cfg]})
    assert f"| `update.stale` ▼ | update | 3 | 0.20 | 0.50 | -0.30 [-0.40, -0.20] {HURT_TEXT} |" in markdown
    assert "▼ memory hurt here" in markdown


def test_undecided_text_checks_are_marked_and_counted_under_the_table() -> None:
    from pytest_pastbench.results.render.table import UNDECIDED_MARK, undecided_note

    summary = {"configs": [{**config(undecided=3), "families": {"f": {**ENTRY, "undecided": 3}}}]}
    text = render_delta_table(summary)
    assert f"f{UNDECIDED_MARK}" in text and undecided_note(3) in text
    assert "3 text check(s) undecided" in undecided_note(3)
    assert UNDECIDED_MARK.strip() not in render_delta_table({"configs": [config()]})


def test_a_ci_from_one_scenario_group_is_no_ci_and_never_marks_memory_hurt() -> None:
    """One rule (``stats.estimates_noise``) for the gates and the reports: Δ from a single paired
    unit has no noise estimate, so no CI is shown and nothing says memory hurt (the one-episode
    example in docs/getting-started.md showed −0.09 [−0.09, −0.09] ▼); two scenario groups that
    both did worse with the store do get the mark, in the terminal and the Markdown alike."""
    from pytest_pastbench.protocols.past.metrics import summarize
    from pytest_pastbench.results.render.ci_summary import render_markdown
    from pytest_pastbench.results.render.table import HURT_MARK, HURT_TEXT, memory_hurt
    from tests.family_samples import scored_record

    run = {"id": "r", "seed": 0, "dataset_hash": "d", "judge": None, "models": ["m"]}

    def summary(pairs: dict[str, tuple[float, float]]) -> dict:
        records = [
            scored_record("update.stale", episode, arm, score, group=episode)
            for episode, scores in pairs.items()
            for arm, score in zip(("on", "off"), scores, strict=True)
        ]
        return summarize(records, run, seed=0)

    one = summary({"ep1": (0.24, 0.33)})
    two = summary({"ep1": (0.24, 0.33), "ep2": (0.10, 0.40)})
    [single] = one["configs"][0]["families"].values()
    [both] = two["configs"][0]["families"].values()
    assert single["delta"] < 0 and single["delta_ci"] is None and not memory_hurt(single)
    assert max(both["delta_ci"]) < 0 and memory_hurt(both)
    for text in (render_delta_table(one), render_markdown(one)):
        assert HURT_TEXT not in text and HURT_MARK.strip() not in text
        assert "-0.09 [" not in text  # the Δ without a CI, and the note says why
        assert "No 95% CIs: one paired scenario group per family is too few paired units" in text
        assert "95% CIs: paired bootstrap" not in text
    for text in (render_delta_table(two), render_markdown(two)):
        assert HURT_TEXT in text
