"""Issue 28 item 5: the curator's credential filter on the built-in data (it was written without it).

For every declared secret (``safety.secrets`` of an episode or a session), is every user sentence
that says it one the curator's filter (``curation.has_credential``) refuses to store? And
how many user sentences that say no secret does it refuse (false positives: knowledge lost)?
Prints counts and, for a miss, only where it is (family, episode), never the secret.

    python benchmarks/secret_filter.py
    python benchmarks/secret_filter.py --per-capability 1      # tiny: one family per capability
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import first_per_capability  # noqa: E402

from pytest_pastbench.core.text import sentences  # noqa: E402
from pytest_pastbench.protocols.shared.curation import has_credential  # noqa: E402
from tests.adversarial.harness import past_families  # noqa: E402


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-capability", type=int, help="the first N families of each capability")
    args = parser.parse_args(argv)
    secrets = caught = clean = flagged = 0
    missed: list[str] = []
    for family in first_per_capability(past_families(), args.per_capability):
        for episode in family.episodes:
            declared = {*episode.safety.secrets, *(x for s in episode.sessions for x in s.safety.secrets)}
            said = [x for s in episode.sessions for turn in s.user for x in sentences(turn)]
            for secret in sorted(declared):
                secrets += 1
                holding = [x for x in said if secret in x]
                if holding and all(has_credential(x) for x in holding):
                    caught += 1
                else:
                    missed.append(f"{family.qualified_id}::{episode.id}")
            for sentence in said:
                if not any(secret in sentence for secret in declared):
                    clean += 1
                    flagged += has_credential(sentence)
    share = f"{caught / secrets:.1%}" if secrets else "none declared"
    print(f"declared secrets caught: {caught}/{secrets} ({share})")
    print(f"sentences without a secret refused as credentials: {flagged}/{clean}")
    for where in missed:
        print(f"missed: a secret of {where}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
