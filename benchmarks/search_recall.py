"""Issue 28 item 4: recall@k of the key facts when the eval prompts search memory, before and after
stemming.

For every PAST episode of the built-in dataset, a fresh store gets the episode's learn-session user
turns sentence by sentence (one memory entry each, as an agent that writes down everything it is
told would), then each eval session's prompt (its user turns) searches it, as ``memory_search``
does, with the top ``k`` hits kept. A key fact (``evidence.key_facts``) counts as found when the
top-k hits of at least one eval prompt of its episode state every one of its ``match`` terms
together (the grader's matching: normalised, token-bounded). Recall is found facts / all facts,
pooled over the episodes of a capability.

Search terms compared (the store's ``term_groups`` and ``term_counts``):
- plain words: lower-cased content words, matched exactly, each query word once (main before
  issue 28);
- stems: each content word reduced to its Snowball English stem;
- stems + parts: stems, and a compound's parts as terms too ("OPS-1234" is also "ops", "1234"),
  a query's repeated words weighing more — what the store uses now.

    python benchmarks/search_recall.py          # k = 5 (the store's default limit)
    python benchmarks/search_recall.py 3
    python benchmarks/search_recall.py --per-capability 1      # tiny: one family per capability
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import first_per_capability  # noqa: E402
from tabulate import tabulate  # noqa: E402

from pytest_pastbench.core.store import Store  # noqa: E402
from pytest_pastbench.core.text import content_words, sentences, stem, term_counts, term_groups  # noqa: E402
from pytest_pastbench.protocols.past.schema import CAPABILITIES, Episode  # noqa: E402
from pytest_pastbench.protocols.shared.matching import asserts_all  # noqa: E402
from tests.adversarial.harness import past_families  # noqa: E402

Groups = Callable[[str], list[tuple[str, ...]]]
Counts = Callable[[str], Counter[str]]


def plain_words(text: str) -> list[tuple[str, ...]]:
    return [(w,) for w in content_words(text)]


def stems_only(text: str) -> list[tuple[str, ...]]:
    return list(dict.fromkeys((stem(w),) for w in content_words(text)))


def once(groups: Groups) -> Counts:
    """Each query term weighs 1 (main before issue 28)."""
    return lambda text: Counter(t for group in groups(text) for t in group)


TOKENISERS: dict[str, tuple[Groups, Counts]] = {
    "plain words (before)": (plain_words, once(plain_words)),
    "stems": (stems_only, once(stems_only)),
    "stems + parts (after)": (term_groups, term_counts),
}


def found_facts(
    episode: Episode, terms: tuple[Groups, Counts], root: Path, k: int
) -> tuple[int, int, float, int]:
    """(key facts found in the top-k hits of some eval prompt, key facts, seconds spent searching,
    searches) of one episode."""

    class _Store(Store):
        term_groups, term_counts = staticmethod(terms[0]), staticmethod(terms[1])

    store = _Store(root)
    for session in episode.sessions:
        if session.stage == "learn":
            for turn in session.user:
                for sentence in sentences(turn):
                    store.write_memory(sentence)
    prompts = ["\n".join(s.user) for s in episode.eval_sessions()]
    started = time.perf_counter()
    hits = [" \n".join(e.text for e in store.search(prompt, limit=k)) for prompt in prompts]
    spent = time.perf_counter() - started
    facts = episode.evidence.key_facts
    found = sum(any(asserts_all(h, f.terms()) for h in hits) for f in facts)
    return found, len(facts), spent, len(prompts)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("k", nargs="?", type=int, default=5, help="hits kept per search")
    parser.add_argument("--per-capability", type=int, help="the first N families of each capability")
    args = parser.parse_args(argv)
    k = args.k
    families = first_per_capability(past_families(), args.per_capability)
    totals: dict[str, dict[str, list[int]]] = {name: defaultdict(lambda: [0, 0]) for name in TOKENISERS}
    # Search time per call (the store re-tokenises the query and ranks every entry on each call;
    # the stems come from an lru_cache). Printed, never asserted: it depends on the machine.
    search_ms: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="pastbench-recall-") as tmp:
        for t, (name, terms) in enumerate(TOKENISERS.items()):
            spent, searches = 0.0, 0
            for n, family in enumerate(families):
                for m, episode in enumerate(family.episodes):
                    found, facts, seconds, calls = found_facts(episode, terms, Path(tmp) / f"{t}-{n}-{m}", k)
                    totals[name][family.capability][0] += found
                    totals[name][family.capability][1] += facts
                    spent, searches = spent + seconds, searches + calls
            search_ms[name] = 1000 * spent / searches
    episodes = sum(len(f.episodes) for f in families)
    rows = []
    for name, by_capability in totals.items():
        cells = [f"{by_capability[c][0] / by_capability[c][1]:.3f}" for c in CAPABILITIES]
        found = sum(v[0] for v in by_capability.values())
        facts = sum(v[1] for v in by_capability.values())
        rows.append([name, *cells, f"{found / facts:.3f} ({found}/{facts})", f"{search_ms[name]:.2f}"])
    print(f"recall@{k} of the key facts, eval prompts searching the learn sentences ({episodes} episodes)")
    print(tabulate(rows, headers=["search terms", *CAPABILITIES, "all", "ms/search"], disable_numparse=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
