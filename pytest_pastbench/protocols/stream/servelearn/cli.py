"""``pastbench validate DOWNLOAD``: the replay audit over a ServeLearnBench download, printed."""

from __future__ import annotations

from pathlib import Path

from .replay import validate_servelearn


def validate_downloads(paths: list[Path]) -> int:
    """Print each download's audit; 0 when every task replayed exactly and every scenario read."""
    status = 0
    for path in paths:
        report = validate_servelearn(path)
        print(f"{path}:")
        for line in report.lines():
            print(line)
        status = status if report.ok else 1
    return status
