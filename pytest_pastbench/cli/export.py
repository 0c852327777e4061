"""``pastbench export``: the whole PAST dataset as one JSON file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def run(args: argparse.Namespace) -> int:
    from ..errors import FamilyFileError
    from ..protocols.past.dataset.export import export_dataset
    from ..resources import families_dir

    try:
        document = export_dataset(Path(args.families) if args.families else families_dir(), Path(args.out))
    except FamilyFileError as exc:
        print(f"FAIL {exc}", file=sys.stderr)
        return 1
    print(
        f"wrote {args.out}: {document['n_families']} families, {document['n_episodes']} episodes, "
        f"dataset hash {document['dataset_hash']}"
    )
    return 0


def register_cli(commands: Any) -> None:
    from ..protocols.past.dataset.export import DEFAULT_EXPORT

    export = commands.add_parser("export", help="write the whole dataset as one JSON file")
    export.add_argument("--out", default=DEFAULT_EXPORT, help=f"output file (default: {DEFAULT_EXPORT})")
    export.add_argument("--families", help="family folder (default: the built-in families)")
    export.set_defaults(func=run)
