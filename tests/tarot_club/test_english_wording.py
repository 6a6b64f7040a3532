"""English text says "they/their" for players, arbiters and organisers, never "he/his/him".

Checked: every English message of the catalogues (the msgids, and the English catalogue's
msgstrs), every string of the code that is not a docstring (messages, help texts, the API's
descriptions), the templates' text and the JavaScript's strings (comments left out), and the
English documents people read (README, docs/API.md, the English guide).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from django.conf import settings

BASE = Path(settings.BASE_DIR)
HE = re.compile(r"\b(he|his|him|himself)\b", re.IGNORECASE)
# Genuine uses that are not about a person (none so far): (where, excerpt).
ALLOWED: set[tuple[str, str]] = set()


def _hits(where: str, text: str) -> Iterator[tuple[str, str]]:
    for match in HE.finditer(text):
        excerpt = text[max(0, match.start() - 40) : match.end() + 20].replace("\n", " ")
        if (where, match.group(0).lower()) not in ALLOWED:
            yield where, excerpt


def catalogue_hits(path: Path, *, msgstrs: bool) -> list[tuple[str, str]]:
    """He/his in a catalogue's msgids (and its msgstrs when they are English)."""
    with path.open("rb") as po:
        catalogue = read_po(po)
    found = []
    for message in catalogue:
        if not message.id:
            continue
        texts = list(message.id) if isinstance(message.id, tuple) else [message.id]
        if msgstrs:
            strings = message.string if isinstance(message.string, tuple) else [message.string]
            texts.extend(s for s in strings if s)
        for text in texts:
            found.extend(_hits(f"{path.name}:{message.lineno}", text))
    return found


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def python_hits(path: Path) -> list[tuple[str, str]]:
    """He/his in a module's strings (f-string parts included), docstrings and comments left
    out: what reaches a reader (messages, help texts, API descriptions, errors)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
        ):
            found.extend(_hits(f"{path.relative_to(BASE)}:{node.lineno}", node.value))
    return found


_TEMPLATE_COMMENT = re.compile(r"\{#.*?#\}|\{%\s*comment\s*%\}.*?\{%\s*endcomment\s*%\}", re.S)
_JS_COMMENT = re.compile(r"/\*.*?\*/|(?<![:\"'])//[^\n]*", re.S)


def text_hits(path: Path) -> list[tuple[str, str]]:
    """He/his in a template (comments left out), a script (comments left out) or a document."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".html":
        text = _TEMPLATE_COMMENT.sub("", text)
    elif path.suffix == ".js":
        text = _JS_COMMENT.sub("", text)
    return list(_hits(str(path.relative_to(BASE)), text))


def _code() -> list[Path]:
    return [
        p for root in ("tournaments", "scoring", "tarot_club") for p in (BASE / root).rglob("*.py")
    ]


def _texts() -> list[Path]:
    roots = [BASE / "templates", *(BASE / app / "static" for app in ("tournaments", "scoring"))]
    files = [p for root in roots for p in root.rglob("*") if p.suffix in (".html", ".js")]
    docs = [BASE / "README.md", BASE / "docs" / "API.md"]
    return files + docs + sorted((BASE / "docs" / "guide" / "en").glob("*.md"))


def test_no_english_message_of_the_catalogues_says_he_or_his():
    found = []
    for root in settings.LOCALE_PATHS:
        for path in sorted(Path(root).glob("*/LC_MESSAGES/*.po")):
            found.extend(catalogue_hits(path, msgstrs=path.parts[-3] == "en"))
    assert found == []


def test_no_string_of_the_code_says_he_or_his():
    found = [hit for path in _code() for hit in python_hits(path)]
    assert found == []


def test_no_template_script_or_english_document_says_he_or_his():
    found = [hit for path in _texts() for hit in text_hits(path)]
    assert found == []


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ('MESSAGE = _("A player confirms with his code.")\n', True),
        ('help_text = "The user chooses " "his password"\n', True),
        ('f"player {p}: he held it"\n', True),
        ('def f():\n    """His docstring is for developers."""\n    # he, in a comment\n', False),
        ('MESSAGE = _("A player confirms with their code; the theme, this, she")\n', False),
    ],
)
def test_the_code_check_finds_he_in_strings_only(tmp_path, monkeypatch, source, found):
    monkeypatch.setattr(f"{__name__}.BASE", tmp_path)
    module = tmp_path / "module.py"
    module.write_text(source, encoding="utf-8")
    assert bool(python_hits(module)) == found


def test_the_catalogue_and_text_checks_find_he(tmp_path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.BASE", tmp_path)
    po = tmp_path / "django.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "Arbiter: runs the tournaments he is named for"\nmsgstr "Arbitre"\n\n'
        'msgid "Their seat"\nmsgstr "His seat"\n',
        encoding="utf-8",
    )
    assert len(catalogue_hits(po, msgstrs=False)) == 1
    assert len(catalogue_hits(po, msgstrs=True)) == 2
    page = tmp_path / "page.html"
    page.write_text("{# his comment #}<p>{% translate 'Find his seat' %}</p>", encoding="utf-8")
    script = tmp_path / "page.js"
    script.write_text('// his comment\nshow("their seat"); /* him */ show("his seat");\n')
    assert len(text_hits(page)) == 1
    assert len(text_hits(script)) == 1
