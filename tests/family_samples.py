"""Small family files for plugin tests (the built-in data is tested on its own)."""

# The PAST items of the built-in set, by capability marker: the packaged families also hold the
# docs/design.md §8 protocols' files (families/streams/, ...), which tests of the PAST runs leave out.
PAST_ITEMS = ("-m", "memory or procedural or gathering or update")

GOOD_MEMORY = """\
format: pastbench/v1
id: tiny_prefs
capability: memory
version: "1"
episodes:
  - id: ep01
    sessions:
      - stage: learn
        user: "Please summarise the Brightwater account. The Brightwater reports go to @mira.k every Monday."
      - stage: eval_near
        user: "Who gets the Brightwater reports?"
        checks:
          - {type: contains, values: ["@mira.k"]}
    evidence:
      key_facts: [{text: "Brightwater reports go to @mira.k", match: ["brightwater", "@mira.k"]}]
  - id: ep02
    sessions:
      - stage: learn
        user: "Draft the Kestrel status note. Kestrel invoices always use the OPS-BILLING queue."
      - stage: distractor
        user: "What is a good name for a cat?"
      - stage: eval_near
        user: "Which queue do Kestrel invoices use?"
        checks:
          - {type: contains, values: ["OPS-BILLING"]}
    evidence:
      key_facts: [{text: "Kestrel invoices use OPS-BILLING", match: ["kestrel", "ops-billing"]}]
"""

GOOD_UPDATE = """\
format: pastbench/v1
id: tiny_corrections
capability: update
version: "1"
episodes:
  - id: ep01
    sessions:
      - stage: learn
        user: "Help me plan billing. The Halvorsen invoices go out on the 5th business day."
      - stage: learn
        user: "Calendar fix: from now on the Halvorsen invoices go out on the 7th business day."
      - stage: eval_near
        user: "When should the Halvorsen invoices be sent?"
        checks:
          - {type: contains, values: ["7th business day"]}
          - {type: forbids, values: ["5th"]}
    evidence:
      key_facts: [{text: "Halvorsen invoices: 7th business day", match: ["halvorsen", "7th business day"]}]
      stale_facts: [{text: "Halvorsen invoices: 5th business day", match: ["halvorsen", "5th business day"]}]
"""

BAD_STAGE = GOOD_MEMORY.replace("id: tiny_prefs", "id: broken").replace(
    "stage: distractor", "stage: rehearsal"
)


def run_tiny_benchmark(pytester, run_id: str, *models: str):  # noqa: ANN001, ANN201 (test helper)
    """A real plugin run of GOOD_MEMORY in the pytester folder; returns the loaded run."""
    from pytest_pastbench.results.read import load_run

    path = pytester.path / "families" / "memory" / "tiny_prefs.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(GOOD_MEMORY)
    result = pytester.runpytest_subprocess(
        "families", *(f"--pastbench-model={m}" for m in models), f"--pastbench-run-id={run_id}"
    )
    assert result.ret == 0, result.stdout.str()
    return load_run(pytester.path / "reports" / run_id)


def scored_record(family: str, episode: str, arm: str, score: float, **fields):  # noqa: ANN003, ANN201
    """A hand-made item record for summary, baseline and gate tests (model "m", agent hermes)."""
    from pytest_pastbench.results.item_record import ItemRecord

    defaults = {
        "nodeid": f"{family}::{episode}[{arm}]",
        "family": family,
        "capability": family.partition(".")[0],
        "episode": episode,
        "arm": arm,
        "model": "m",
        "agent": "hermes",
        "config_label": "hermes@m",
        "score": score,
    }
    return ItemRecord(**{**defaults, **fields})


# A fixed slice of the built-in dataset for tests that run real benchmark items: two families per
# capability, episodes 1-4 (32 episodes, as many as the first starter set). The whole dataset
# (204 episodes) is run by `pytest -n 2` and audited by tests/protocols/past/dataset/test_audit.py.
SAMPLE_FAMILIES = {
    "memory": ("SM01_preference_adoption", "SM02_constraint_retention"),
    "procedural": ("PC01_sop_bootstrap_01", "PC04_failure_to_rule_01"),
    "gathering": ("PG01_release_decision_followup", "PG03_oncall_handoff_lookup"),
    "update": ("SM03_fact_correction", "SM04_rule_migration"),
}
SAMPLE_EPISODES = ("ep01", "ep02", "ep03", "ep04")


def builtin_sample(*capabilities: str, episodes: tuple[str, ...] = SAMPLE_EPISODES) -> list[str]:
    """pytest options selecting the sample of the built-in families (of some capabilities).

    Tests of run mechanics (shards, merge, xdist) pass fewer ``episodes``: what they prove does
    not grow with the number of episodes, and each episode is two real items per model."""
    families = [f for c in capabilities or SAMPLE_FAMILIES for f in SAMPLE_FAMILIES[c]]
    expression = f"({' or '.join(families)}) and ({' or '.join(episodes)})"
    return ["--pastbench-families=builtin", "-k", expression, *PAST_ITEMS]
