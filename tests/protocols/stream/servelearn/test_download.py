"""``pastbench servelearn download``: the published dataset at a pinned commit, every file checked
against the commit's tree, tested against a server on 127.0.0.1 serving the kept fixtures."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from pytest_pastbench.cli import main
from pytest_pastbench.protocols.stream.servelearn.download import COMMIT, REPOSITORY, blob_sha
from pytest_pastbench.protocols.stream.servelearn.replay import validate_servelearn

from .helpers import FIXTURES


@contextmanager
def github(files: dict[str, bytes], listed: dict[str, bytes] | None = None) -> Iterator[str]:
    """A loopback stand-in for GitHub: the commit's tree listing (of ``listed``) and raw files."""
    tree = [
        {"path": f"dataset/{p}", "type": "blob", "sha": blob_sha(b)} for p, b in (listed or files).items()
    ]
    tree.append({"path": "servelearnbench/cli.py", "type": "blob", "sha": "0" * 40})  # not the dataset
    routes = {f"/repos/{REPOSITORY}/git/trees/{COMMIT}?recursive=1": json.dumps({"tree": tree}).encode()}
    routes |= {f"/{REPOSITORY}/{COMMIT}/dataset/{p}": b for p, b in files.items()}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server API
            body = routes.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.end_headers()
            self.wfile.write(body or b"not found")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def fixture_files() -> dict[str, bytes]:
    return {str(p.relative_to(FIXTURES)): p.read_bytes() for p in sorted(FIXTURES.rglob("*")) if p.is_file()}


def fetch(base: str, dest: Path, *extra: str) -> int:
    return main(["servelearn", "download", str(dest), f"--api-base={base}", f"--raw-base={base}", *extra])


def test_the_dataset_is_fetched_checked_and_validates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = fixture_files()
    with github(files) as base:
        assert fetch(base, tmp_path / "ds") == 0
    out = capsys.readouterr().out
    assert f"{len(files)} files of {REPOSITORY}@{COMMIT[:12]} checked and written to" in out
    assert "(3 scenarios: banking_l1, pitch_l1, retail_l1)" in out
    assert {p: (tmp_path / "ds" / p).read_bytes() for p in files} == files
    record = json.loads((tmp_path / "ds" / "download.json").read_text())
    assert record["commit"] == COMMIT and set(record["files"]) == set(files)
    assert validate_servelearn(tmp_path / "ds").ok


def test_one_scenario_only(tmp_path: Path) -> None:
    with github(fixture_files()) as base:
        assert fetch(base, tmp_path / "ds", "--scenario=pitch_l1") == 0
    assert sorted(p.name for p in (tmp_path / "ds" / "data").iterdir()) == ["pitch_l1"]


def test_a_file_that_does_not_hash_to_the_commits_tree_is_refused_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = fixture_files()
    served = dict(files)
    served["data/retail_l1/test.jsonl"] = files["data/retail_l1/test.jsonl"].replace(b"refuse", b"accept")
    assert served["data/retail_l1/test.jsonl"] != files["data/retail_l1/test.jsonl"]
    with github(served, listed=files) as base:
        assert fetch(base, tmp_path / "ds") == 1
    err = capsys.readouterr().err
    assert "servelearn download: dataset/data/retail_l1/test.jsonl: its bytes hash to" in err
    assert "nothing was written" in err and not (tmp_path / "ds").exists()


def test_a_server_without_the_commit_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with github(fixture_files()) as base:
        assert fetch(base, tmp_path / "ds", "--commit=" + "f" * 40) == 1
    assert "servelearn download: http://127.0.0.1:" in capsys.readouterr().err
