"""No import circle (issue 32): the modules of the apps import each other in one direction,
function-level imports included (a function-level import ties two modules as much as a
top-level one; it only hides the tie). Read from the source with `ast`, as import-linter
does not see function-level imports the same way.

The circles that still stand are listed in REMAINING: the list may only shrink. `scoring`
(rankings and documents) and the hub (`tournaments.simultaneous.hub`) have none."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("scoring", "tournaments", "tarot_club")
SKIPPED = {"migrations", "__pycache__"}

# Each a set of modules importing each other; fix one, then take it off this list.
REMAINING: set[frozenset[str]] = set()
CLEAN = ("scoring", "tournaments.simultaneous.hub")


def modules() -> dict[str, Path]:
    """Every module of the apps by its dotted name (a package by its own name)."""
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if SKIPPED.intersection(parts):
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _type_checking_only(tree: ast.AST) -> set[int]:
    """Ids of the import nodes under `if TYPE_CHECKING:` (no import at run time)."""
    hidden: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            hidden.update(id(inner) for stmt in node.body for inner in ast.walk(stmt))
    return hidden


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of `known` that the module imports anywhere in its text."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    hidden = _type_checking_only(tree)
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in hidden:
            continue
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                target = f"{base}.{alias.name}"
                if target in known:
                    out.add(target)
                elif base in known:
                    out.add(base)
    out.discard(name)
    return out


def circles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.add(top)
                if top == node:
                    break
            if len(component) > 1:
                found.add(frozenset(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def the_circles() -> set[frozenset[str]]:
    known = modules()
    return circles({name: imports_of(name, path, known) for name, path in known.items()})


def test_the_reader_finds_a_circle_made_by_function_level_imports(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "services.py").write_text("def f():\n    from .tasks import t\n    return t\n")
    (package / "tasks.py").write_text("from pkg.services import f\n")
    (package / "alone.py").write_text("from . import services\n")
    known = {
        "pkg": package / "__init__.py",
        "pkg.services": package / "services.py",
        "pkg.tasks": package / "tasks.py",
        "pkg.alone": package / "alone.py",
    }
    graph = {name: imports_of(name, path, known) for name, path in known.items()}
    assert graph["pkg.alone"] == {"pkg.services"}
    assert circles(graph) == {frozenset({"pkg.services", "pkg.tasks"})}


def test_no_new_import_circle_and_none_in_scoring_or_the_hub():
    found = the_circles()
    new = found - REMAINING
    assert not new, "import circles: " + "; ".join(" <-> ".join(sorted(c)) for c in new)
    touching = [c for c in found if any(m.startswith(CLEAN) for m in c)]
    assert not touching, touching
