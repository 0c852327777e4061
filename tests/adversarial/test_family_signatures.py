"""Issue #16 targets on the whole built-in dataset: families tell agents apart, curation pays on update.

- A verbatim-recall agent (the curator on hermes-plus, answering from what it retrieved) does not
  look the same in every family: no two families lie within ±0.02 of each other in all of S_on,
  S_off and Mech. Its S_off is 0 everywhere (it answers only from memory), so S_on and Mech carry
  the difference; Mech is the one of mech.py at the time of the run.
- The generic offline curator beats recall on update, and more so with E2/E5 (hermes-plus).
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache
from itertools import combinations
from statistics import mean

import pytest

from tests.adversarial.harness import Result, past_families, run_contestant

CLOSE = 0.02


@cache
def result(name: str) -> Result:
    return run_contestant(name)


def family_signatures(run: Result) -> dict[str, tuple[float, float, float]]:
    """(S_on, S_off, Mech) per family."""
    scores: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for record in run.records:
        assert record.score is not None
        scores[record.family][record.arm].append(record.score)
        if record.arm == "on" and record.mech is not None and record.mech.mech is not None:
            scores[record.family]["mech"].append(record.mech.mech)
    return {
        family: (mean(s["on"]), mean(s["off"]), mean(s["mech"]) if s["mech"] else 0.0)
        for family, s in scores.items()
    }


@pytest.mark.slow
@pytest.mark.xfail(
    strict=True,
    reason="2 of 378 family pairs (4.0 data) still lie within ±0.02 in S_on, S_off and Mech: "
    "PG03/PG06 (S_on 1.000/1.000, S_off 0.267/0.263, Mech 0.659/0.668) and EP01/SM01 (0.662/0.645, "
    "0.283/0.301, 0.395/0.396); v2 had 11 families at exactly 0.75/0.20",
)
def test_a_verbatim_recall_agent_differs_across_families() -> None:
    signatures = family_signatures(result("verbatim"))
    assert len(signatures) == len(past_families())  # every built-in PAST family ran
    alike = [
        (a, b)
        for a, b in combinations(sorted(signatures), 2)
        if all(abs(x - y) <= CLOSE for x, y in zip(signatures[a], signatures[b], strict=True))
    ]
    assert not alike, alike
    s_on = [p[0] for p in signatures.values()]
    assert max(s_on) - min(s_on) >= 0.3  # not one score everywhere (main gave 0.75 in 11 families)


@pytest.mark.slow
def test_the_curator_beats_recall_on_update() -> None:
    recall, curator, plus = (result(n) for n in ("recall", "curator", "curator+hermes-plus"))
    delta = {
        name: r.s("update", "on") - r.s("update", "off")
        for name, r in [("recall", recall), ("curator", curator), ("plus", plus)]
    }
    assert delta["recall"] < delta["curator"] < delta["plus"], delta
