"""The code's shape: no function longer than 100 lines (CONTRIBUTING, "Ground rules"), so the
biggest ones stay split along what they do. The import arrows are `make lint`'s
(import-linter, `[tool.importlinter]` in pyproject.toml)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 100
SKIPPED = {".venv", "migrations", "node_modules", ".git", "__pycache__"}


def python_files(root: Path) -> list[Path]:
    """Every .py file of the repository but the virtualenv's, the migrations' and the
    installed packages'."""
    return sorted(
        path
        for path in root.rglob("*.py")
        if not SKIPPED.intersection(path.relative_to(root).parts)
    )


def long_functions(path: Path, limit: int = MAX_LINES, root: Path = ROOT) -> list[str]:
    """`file::function (n lines)` for each function (methods and nested ones included) of
    the file longer than `limit` lines, counted from its `def` line to its last line."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            if length > limit:
                out.append(f"{path.relative_to(root)}::{node.name} ({length} lines)")
    return out


def test_the_walk_sees_the_code_and_the_measure_counts_def_to_last_line(tmp_path):
    files = {p.relative_to(ROOT).as_posix() for p in python_files(ROOT)}
    assert {"scoring/rules/ranking.py", "tests/conftest.py", "bench/bench_rankings.py"} <= files
    assert not any(part.startswith((".venv/", "scoring/migrations/")) for part in files)
    sample = tmp_path / "sample.py"
    body = "\n".join(f"    x{i} = {i}" for i in range(99))
    sample.write_text(f"def fits():\n{body}\n\n\ndef does_not():\n{body}\n    return x0\n")
    assert [name.split("::")[1] for name in long_functions(sample, limit=100, root=tmp_path)] == [
        "does_not (101 lines)"
    ]


def test_no_function_is_longer_than_100_lines():
    found = [line for path in python_files(ROOT) for line in long_functions(path)]
    assert not found, "split these along what they do:\n" + "\n".join(found)
