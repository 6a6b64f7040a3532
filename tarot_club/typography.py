"""French typography of the texts people read: a no-break space before « : ; ? ! » and inside
« », so that a phone never starts a line with a lone sign. Checked and fixed in the French
catalogue (its msgstr lines, in place: never re-wrapped nor reordered), in the French guide
and in the French text of templates (`manage.py french_typography [--fix]`; a test runs the
check).

A French message never writes a plural as "bout(s)" or an agreement as "inscrit(e)":
``plural_faults`` finds them in the catalogue (no fixer: the message needs ``ngettext`` or a
rewording).

Not touched: placeholders (``%(name)s``, ``{{ x }}``, ``{% tag %}``), URLs and query strings,
times (12:30), the hands' notation ("S:", "H:"), Markdown code (```` `x` ```` and fenced blocks), link targets.
A sign counts as punctuation when it ends a word: followed by a space, a closing sign or
the end of the text. Only a plain space (or none) before it is wrong; U+202F and U+00A0 are
both accepted, the fixer writes U+202F (U+00A0 in the guide, its existing style).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "NNBSP",
    "Fault",
    "catalogue_faults",
    "fix_catalogue",
    "fix_markdown",
    "fix_template",
    "fix_text",
    "markdown_faults",
    "plural_faults",
    "template_faults",
    "text_faults",
]

NNBSP = "\u202f"
NBSP = "\u00a0"
NO_BREAK = NNBSP + NBSP
# A sign that ends a word: before a space, a closing sign, a quote, "<" or the end.
_ENDS = r"(?=$|[\s\"'»)\].,<*_\\])"
# "word :" (a plain space before), or "word:" (no space), the sign ending a word.
_BEFORE = re.compile(r"(?P<space>[ \t]?)(?P<sign>[:;?!»])" + _ENDS)
_GUILLEMET_OPEN = re.compile(r"«(?P<space>[ \t]?)(?=\S)")
# Spans left alone: placeholders, template tags, URLs, code, times.
_PROTECTED = re.compile(
    # The hands' notation (docs/formats.md): "S:", "%(group)s:" are group names, not prose.
    r"\b[A-Z]:|%\(group\)s:"
    r"|%\([^)]*\)[sdf]"
    r"|\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}"
    r"|`[^`]*`"
    r"|\]\([^)]*\)"
    r"|<[^>]*>"
    r"|(?:https?|ftp|mailto):\S+"
    r"|\b\d{1,2}:\d{2}\b"
)


@dataclass(frozen=True)
class Fault:
    """A place where the typography is wrong: the file, its line and the text around it."""

    path: str
    line: int
    excerpt: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.excerpt}"


def _spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _PROTECTED.finditer(text)]


def _inside(spans: list[tuple[int, int]], index: int) -> bool:
    return any(start <= index < end for start, end in spans)


def _fixes(text: str, space: str = NNBSP) -> list[tuple[int, int, str]]:
    """The replacements (start, end, new text) that put the text right, with ``space``."""
    spans = _spans(text)
    edits: list[tuple[int, int, str]] = []
    for match in _BEFORE.finditer(text):
        sign_at = match.start("sign")
        if sign_at == 0 or _inside(spans, sign_at):
            continue
        if match.group("space"):
            word_end = text[match.start() - 1] if match.start() > 0 else ""
            if not word_end or word_end.isspace() or word_end in NO_BREAK:
                continue  # a sign alone after a line break or an indent: not a sentence's
            edits.append((match.start("space"), match.end("space"), space))
            continue
        previous = text[sign_at - 1]
        if previous in NO_BREAK or previous.isspace():
            continue
        if match.group("sign") != "»" and previous in "«:;?!.…/":
            continue  # "?!", "...:", "/:"
        edits.append((sign_at, sign_at, space))
    for match in _GUILLEMET_OPEN.finditer(text):
        if _inside(spans, match.start()):
            continue
        start, end = match.span("space")
        if text[end : end + 1] not in NO_BREAK:
            edits.append((start, end, space))
    return sorted(set(edits))


def fix_text(text: str, space: str = NNBSP) -> str:
    """The text with ``space`` (U+202F unless told) wherever French typography asks for a
    no-break space."""
    for start, end, new in reversed(_fixes(text, space)):
        text = text[:start] + new + text[end:]
    return text


def text_faults(text: str) -> list[str]:
    """An excerpt around each fault of one text (empty: the text is right)."""
    return [text[max(0, start - 20) : end + 20] for start, end, _new in _fixes(text)]


# --- the catalogue ---------------------------------------------------------------------------

_QUOTED = re.compile(r'^(?P<head>(?:msgstr(?:\[\d+\])?\s+)?)"(?P<body>(?:[^"\\]|\\.)*)"\s*$')


def _msgstr_lines(lines: list[str]) -> Iterator[int]:
    """The indices of the lines holding a msgstr's text (its first line and continuations)."""
    in_msgstr = False
    for index, line in enumerate(lines):
        if line.startswith("msgstr"):
            in_msgstr = True
        elif not line.startswith('"'):
            in_msgstr = False
        if in_msgstr and _QUOTED.match(line):
            yield index


def _header_end(lines: list[str]) -> int:
    """The first line after the catalogue's header entry (msgid "")."""
    for index, line in enumerate(lines):
        if not line.strip() and index > 0:
            return index
    return 0


def _per_line(lines: list[str], fix: Callable[[str], str]) -> tuple[list[str], list[int]]:
    changed = []
    start = _header_end(lines)
    out = list(lines)
    for index in _msgstr_lines(lines):
        if index < start:
            continue
        match = _QUOTED.match(lines[index])
        assert match is not None
        body = match.group("body")
        new = fix(body)
        if new != body:
            out[index] = f'{match.group("head")}"{new}"' + (
                "\n" if lines[index].endswith("\n") else ""
            )
            changed.append(index)
    return out, changed


def catalogue_faults(path: Path) -> list[Fault]:
    """Every msgstr line of a .po catalogue breaking the rules."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    _out, changed = _per_line(lines, fix_text)
    return [Fault(str(path), i + 1, lines[i].strip()[:120]) for i in changed]


# "bout(s)", "joueur(s)", "inscrit(e)", "inscrit(e)s", "nouveau(x)", "sont-il(s)"…
_PAREN_PLURAL = re.compile(r"\w\((?:s|e|es|x|nt|le|ne)\)", re.IGNORECASE)


def plural_faults(path: Path) -> list[Fault]:
    """Every translation of a .po catalogue that writes a plural or an agreement in brackets
    ("bout(s)", "inscrit(e)"): French says "1 bout", "2 bouts" through ``ngettext``."""
    from babel.messages.pofile import read_po

    with path.open("rb") as po:
        catalogue = read_po(po)
    found = []
    for message in catalogue:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for text in strings:
            match = _PAREN_PLURAL.search(text or "")
            if match:
                excerpt = text[max(0, match.start() - 40) : match.end() + 20]
                found.append(Fault(str(path), message.lineno, excerpt))
    return found


def fix_catalogue(path: Path) -> int:
    """Put a catalogue's msgstr lines right, in place; returns how many lines changed."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    out, changed = _per_line(lines, fix_text)
    if changed:
        path.write_text("".join(out), encoding="utf-8")
    return len(changed)


# --- Markdown (the French guide) ---------------------------------------------------------------


def _markdown_lines(text: str) -> Iterator[tuple[int, str]]:
    """(index, line) of the prose lines: fenced code blocks and indented code left out."""
    fenced = False
    for index, line in enumerate(text.splitlines(keepends=True)):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced or line.startswith("    ") or line.startswith("\t"):
            continue
        yield index, line


def _fix_lines(text: str, lines: Iterator[tuple[int, str]]) -> tuple[str, list[int]]:
    """The guide's own style: U+00A0 (its Markdown renderer keeps it, its test reads it)."""
    out = text.splitlines(keepends=True)
    changed = []
    for index, line in lines:
        new = fix_text(line, NBSP)
        if new != line:
            out[index] = new
            changed.append(index)
    return "".join(out), changed


def markdown_faults(path: Path) -> list[Fault]:
    """Every prose line of a French Markdown file breaking the rules."""
    text = path.read_text(encoding="utf-8")
    _new, changed = _fix_lines(text, _markdown_lines(text))
    lines = text.splitlines()
    return [Fault(str(path), i + 1, lines[i].strip()[:120]) for i in changed]


def fix_markdown(path: Path) -> int:
    """Put a French Markdown file right, in place; returns how many lines changed."""
    text = path.read_text(encoding="utf-8")
    new, changed = _fix_lines(text, _markdown_lines(text))
    if changed:
        path.write_text(new, encoding="utf-8")
    return len(changed)


# --- templates: their French literal text ------------------------------------------------------

_FRENCH = re.compile(r"[àâçéèêëîïôûùüœÀÂÇÉÈÊÎÔÛŒ]|\b(?:le|la|les|des|du|est|une|vous|où)\b")
_TEXT_NODE = re.compile(r">([^<>{}]+)<")


def _template_lines(text: str) -> Iterator[tuple[int, str]]:
    """(index, line) of the template lines with French literal text between tags."""
    for index, line in enumerate(text.splitlines(keepends=True)):
        if any(_FRENCH.search(node) for node in _TEXT_NODE.findall(line)):
            yield index, line


def _fix_template_line(line: str) -> str:
    return _TEXT_NODE.sub(
        lambda m: ">" + (fix_text(m.group(1)) if _FRENCH.search(m.group(1)) else m.group(1)) + "<",
        line,
    )


def template_faults(path: Path) -> list[Fault]:
    """Every template line whose French literal text breaks the rules."""
    text = path.read_text(encoding="utf-8")
    return [
        Fault(str(path), i + 1, line.strip()[:120])
        for i, line in _template_lines(text)
        if _fix_template_line(line) != line
    ]


def fix_template(path: Path) -> int:
    """Put a template's French literal text right, in place; returns how many lines changed."""
    text = path.read_text(encoding="utf-8")
    out = text.splitlines(keepends=True)
    changed = 0
    for index, line in _template_lines(text):
        new = _fix_template_line(line)
        if new != line:
            out[index] = new
            changed += 1
    if changed:
        path.write_text("".join(out), encoding="utf-8")
    return changed
