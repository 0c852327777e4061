"""``pastbench generate-streams``: generate stream families' tickets and print their counts.

Generation is deterministic (the family's seed), so the files it writes are the exact tickets a
run of that scale serves; they hold the expected answers, so they are for inspection and for
other harnesses, never for the agent.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tabulate import tabulate

from ..errors import FamilyFileError
from ..protocols.stream.generator import dataset_counts, generate
from ..protocols.stream.schema import SCALES, load_stream
from ..resources import families_dir


def stream_files(paths: list[str]) -> list[Path]:
    """Stream family files under the given files or folders (the packaged ones by default)."""
    # lazy: keeps `pastbench --help` and the other subcommands light
    from ..protocols.detect import family_format

    roots = [Path(p) for p in paths] or [families_dir() / "streams"]
    found: list[Path] = []
    for root in roots:
        candidates = sorted(root.rglob("*")) if root.is_dir() else [root]
        found += [p for p in candidates if p.is_file() and family_format(p) == "pastbench/stream-v1"]
    return found


def _generate(args: argparse.Namespace) -> int:
    files = stream_files(args.paths)
    if not files:
        print("no stream family files (format: pastbench/stream-v1) found", file=sys.stderr)
        return 2
    rows: list[list[Any]] = []
    totals = {"windows": 0, "serving": 0, "test": 0, "tasks": 0, "hidden": 0, "fully": 0}
    for path in files:
        try:
            stream = load_stream(path)
        except FamilyFileError as exc:
            print(f"FAIL {exc}", file=sys.stderr)
            return 1
        windows = generate(stream, args.scale)
        tasks = [t for w in windows for t in (*w.serving, *w.test)]
        counts = {
            **dataset_counts(windows),
            "hidden": sum(t.case == "hidden" for t in tasks),
            "fully": sum(t.case == "fully" for t in tasks),
        }
        for key in totals:
            totals[key] += counts[key]
        family = stream.family
        rows.append([stream.id, family.domain, family.tier, *(counts[k] for k in totals)])
        if args.output:
            out = Path(args.output) / f"{stream.id}.{args.scale}.jsonl"
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text("".join(json.dumps(t.to_json(), sort_keys=True) + "\n" for t in tasks))
    rows.append([f"total ({len(files)} streams)", "", "", *totals.values()])
    headers = ["stream", "domain", "tier", "windows", "serving", "test", "tasks", "hidden", "fully"]
    print(tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True))
    if args.output:
        print(f"\ntickets written to {args.output}/<stream>.{args.scale}.jsonl")
    return 0


def register_cli(commands: Any) -> None:
    parser = commands.add_parser(
        "generate-streams",
        help="generate the tickets of stream families (seeded) and print their counts",
    )
    parser.add_argument(
        "paths", nargs="*", help="stream family files or folders (default: the packaged ones)"
    )
    parser.add_argument("--scale", choices=SCALES, default="full", help="full (default) or sample")
    parser.add_argument("-o", "--output", help="also write one JSONL file of tickets per stream here")
    parser.set_defaults(func=_generate)
