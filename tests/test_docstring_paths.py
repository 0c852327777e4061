"""Every file or folder of ours that a docstring or comment in the package names exists.

After the package was laid out anew, docstrings kept naming ``models.py``, ``provider.py``,
``adapters/``…: a reader followed them to nothing. A ``name.py`` (or ``dir/name.py``) must end the
path of a file in the package (or be a path from the repository's root); a ``dir/`` likewise, or be
one of the folders made at run time. Other projects' and users' files are listed in ``NOT_OURS``
with the module that names them.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "pytest_pastbench"

# A path token: ``a/b.py`` or ``name.py``, or a folder ``a/b/`` (not part of a URL or a longer word).
PATH = re.compile(r"(?<![\w/.:-])((?:\w+/)*\w+\.py|(?:\w+/)+)(?![\w/])")
NOT_OURS = {
    # Files of the project the stream protocol's servelearn adapter follows, named as its authors do.
    ("protocols/stream/servelearn/engine.py", "servelearnbench/agent.py"),
    ("protocols/stream/servelearn/engine.py", "engine/env.py"),
    ("protocols/stream/servelearn/rag.py", "methods/rag.py"),
    ("protocols/stream/servelearn/retail.py", "config_tools.py"),
    # A user's program in examples of a command and an agent file.
    ("agents/external/process.py", "agent.py"),
    ("agents/external/agent_files.py", "my_agent.py"),
    # The file a plasticity artifact holds in the agent's store.
    ("protocols/plasticity/artifacts.py", "tool.py"),
}
# Folders made at run time (run folder, store, model prefix, artifacts, downloads), not in the repo.
RUNTIME_FOLDERS = {
    "accounts/fireworks/models/",  # a provider's model prefix
    "bin/",
    "cancelled/",
    "data/",
    "environments/",
    "items/",
    "memory/",
    "pastbench/",  # the offline models' prefix: pastbench/<policy>
    "plots/",
    "reports/",
    "runs/",
    "skills/",
    "store/",
    "tools/",
    "_data/",
}


def named_paths(path: Path) -> list[tuple[int, str]]:
    """(line, token) of each path named in the module's docstrings and comments."""
    source = path.read_text()
    texts: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            docstring = ast.get_docstring(node, clean=False)
            if docstring is not None:
                texts.append((node.body[0].lineno, docstring))
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            texts.append((token.start[0], token.string))
    return [(line, m.group(1)) for line, text in texts for m in PATH.finditer(text)]


def _ours() -> tuple[list[str], set[str]]:
    """Files and folders a name may refer to: the package's (by any tail of their path) and the
    repository's from its root (``tests/core/test_stats.py``, ``benchmarks/gateway_cpu.py``)."""
    package = [p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*")]
    files = [path for path in package if path.endswith(".py")]
    folders = {path + "/" for path in package if (PACKAGE / path).is_dir()}
    return files, folders


def exists(token: str, files: list[str], folders: set[str]) -> bool:
    if (ROOT / token).exists():
        return True
    if token.endswith("/"):
        return any(folder == token or folder.endswith("/" + token) for folder in folders)
    return any(file == token or file.endswith("/" + token) for file in files)


def test_every_path_a_docstring_or_comment_names_exists() -> None:
    files, folders = _ours()
    missing = [
        f"{path.relative_to(ROOT)}:{line}: {token}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line, token in named_paths(path)
        if (path.relative_to(PACKAGE).as_posix(), token) not in NOT_OURS
        and token not in RUNTIME_FOLDERS
        and not exists(token, files, folders)
    ]
    assert not missing, "docstrings and comments name files that do not exist:\n" + "\n".join(missing)


def test_the_check_finds_a_stale_name(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text('"""Built by ``provider.py``; see adapters/."""\nx = 1  # as in summary.py\n')
    files, folders = _ours()
    found = [token for _, token in named_paths(module)]
    assert found == ["provider.py", "adapters/", "summary.py"]
    assert not any(exists(token, files, folders) for token in found)
    assert exists("protocols/base.py", files, folders) and exists("agents/external/", files, folders)


# A test file named anywhere in the repository: ``tests/…/test_x.py`` or ``tests/…/`` (tests move
# with the package they mirror; a page or docstring must follow them).
TEST_PATH = re.compile(r"(?<![\w/.-])(tests/(?:\w+/)*(?:\w+\.py)?)(?![\w/])")
NAMING_FILES = (
    "README.md",
    "docs/**/*.md",
    "families/**/*.md",
    "benchmarks/**/*.py",
    "pytest_pastbench/**/*.py",
    "tests/**/*.py",
)
EXAMPLE_IDS = {"tests/test_x.py"}  # a made-up node id in tests/plugin/test_shard.py


def test_every_test_file_named_in_the_docs_and_the_code_exists() -> None:
    missing = [
        f"{path.relative_to(ROOT)}: {token}"
        for pattern in NAMING_FILES
        for path in sorted(ROOT.glob(pattern))
        for token in TEST_PATH.findall(path.read_text(encoding="utf-8"))
        if token not in EXAMPLE_IDS and not (ROOT / token).exists()
    ]
    assert not missing, "these name test files that do not exist:\n" + "\n".join(missing)
