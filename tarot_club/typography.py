"""French typography of the texts people read: a no-break space before « : ; ? ! » and inside
« », so that a phone never starts a line with a lone sign. Checked and fixed in the French
catalogue (its msgstr lines, in place: never re-wrapped nor reordered), in the French guide
and in the French text of templates (`manage.py french_typography [--fix]`; a test runs the
check).

Generated text (a rendered page, a PDF read back) is checked by ``generated_faults``: the
spaces, a zero counted with a plural ("0 points": French says "0 point") and one donne
named with a plural ("les donnes 11"). A catalogue message's lines are also checked joined
(``catalogue_faults``): a wrapped msgstr can hide "points ;" across two lines.

One apostrophe, the typographic one (U+2019, "l’arbitre"), in every French text: the
catalogues (their msgstr lines only, never a msgid), the French guide and the French text of
templates. ``apostrophe_faults`` finds a straight one between two letters, ``fix_apostrophes``
replaces it in place (placeholders, markup, URLs and code left alone); `manage.py
french_typography --fix` runs it with the other fixers, so it can be run again after a merge.

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
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "APOSTROPHE",
    "NNBSP",
    "Fault",
    "apostrophe_faults",
    "catalogue_faults",
    "fix_apostrophes",
    "fix_catalogue",
    "fix_markdown",
    "fix_template",
    "fix_text",
    "generated_faults",
    "html_text",
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


def _msgstr_blocks(lines: list[str]) -> Iterator[list[int]]:
    """The indices of each msgstr's lines (its first line and its continuations), one list
    per msgstr (``msgstr[0]`` and ``msgstr[1]`` apart), after the catalogue's header."""
    block: list[int] = []
    start = _header_end(lines)
    for index, line in enumerate(lines):
        if line.startswith("msgstr") or not line.startswith('"'):
            if block:
                yield block
            block = []
        starts_or_goes_on = line.startswith("msgstr") or (block and line.startswith('"'))
        if index >= start and starts_or_goes_on and _QUOTED.match(line):
            block.append(index)
    if block:
        yield block


def _header_end(lines: list[str]) -> int:
    """The first line after the catalogue's header entry (msgid "")."""
    for index, line in enumerate(lines):
        if not line.strip() and index > 0:
            return index
    return 0


def _per_msgstr(lines: list[str]) -> tuple[list[str], list[int]]:
    """Each msgstr checked as the text it makes, its wrapped lines joined (a space before
    ";" at the end of one line and the ";" on the next is a fault), and put right line by
    line: an edit at a line's end stays on that line."""
    changed = []
    out = list(lines)
    for block in _msgstr_blocks(lines):
        matches = [_QUOTED.match(lines[i]) for i in block]
        bodies = [m.group("body") for m in matches if m is not None]
        joined = "".join(bodies)
        edits = _fixes(joined)
        if not edits:
            continue
        starts = [sum(len(b) for b in bodies[:k]) for k in range(len(bodies))]
        new_bodies = list(bodies)
        for start, end, new in reversed(edits):
            # the last line that holds `start`; an insertion at a line's start goes to the
            # end of the line before (the no-break space stays with its word)
            k = max(i for i, s0 in enumerate(starts) if s0 <= start)
            if start == end and start == starts[k] and k > 0:
                k -= 1
            at = start - starts[k]
            body = new_bodies[k]
            new_bodies[k] = body[:at] + new + body[at + (end - start) :]
        for k, index in enumerate(block):
            if new_bodies[k] != bodies[k]:
                match = matches[k]
                assert match is not None
                out[index] = f'{match.group("head")}"{new_bodies[k]}"' + (
                    "\n" if lines[index].endswith("\n") else ""
                )
                changed.append(index)
    return out, changed


def catalogue_faults(path: Path) -> list[Fault]:
    """Every msgstr line of a .po catalogue breaking the rules."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    _out, changed = _per_msgstr(lines)
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
    out, changed = _per_msgstr(lines)
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


# --- generated text: pages and PDFs ----------------------------------------------------------

# The nouns the product counts: after a lone 0 French takes the singular ("0 point").
_COUNTED = (
    "résultats|points|bouts|donnes|joueurs|joueuses|tables|tours|pénalités|essais|étuis"
    "|séries|tournois|inscrits|modifications|avertissements|places|parties|manquants"
)
_ZERO_PLURAL = re.compile(r"(?<![\d,.\w−+-])0[ \u00a0\u202f]+(?:" + _COUNTED + r")\b")
# "les donnes 11", "Mort sur les donnes 7": a plural noun before one number only.
_ONE_NUMBER_PLURAL = re.compile(
    r"\b(?:les|aux) donnes[ \u00a0\u202f]+\d+\b(?![ \u00a0\u202f]*(?:[,\d–-]|et\b|à\b))"
)


def generated_faults(text: str, *, spaces_known: bool = True) -> list[str]:
    """An excerpt around each fault of a text the product generated in French: the spaces of
    ``text_faults``, "0" with a plural noun, and "les donnes 11" for one donne.

    ``spaces_known=False`` (a PDF read back, where a no-break space comes out as a plain one):
    only a sign glued to its word ("points;") counts, not a plain space before it."""
    found = []
    for start, end, _new in _fixes(text):
        if spaces_known or start == end:
            found.append(text[max(0, start - 30) : end + 20])
    for pattern in (_ZERO_PLURAL, _ONE_NUMBER_PLURAL):
        found.extend(text[max(0, m.start() - 20) : m.end() + 10] for m in pattern.finditer(text))
    return found


_BLOCK_TAGS = frozenset(
    {
        *("address", "article", "aside", "blockquote", "br", "caption", "dd", "details", "div"),
        *("dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3"),
        *("h4", "h5", "h6", "header", "hr", "legend", "li", "main", "nav", "ol", "option", "p"),
        *("pre", "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr"),
        *("ul", "button", "label", "select", "textarea"),
    }
)


def html_text(html: str) -> list[str]:
    """The text a reader sees on a page, one string per block (a paragraph, a cell, a list
    item…): inline tags joined, scripts, styles, code and aria-hidden symbols left out, titles and labels given to
    assistive technology (title, aria-label, alt, placeholder) added as blocks of their own."""
    from html.parser import HTMLParser

    blocks: list[str] = []
    current: list[str] = []
    hidden: list[str] = []
    skip = 0

    def flush() -> None:
        # collapse the markup's white space, never a no-break space
        text = re.sub(r"[ \t\r\n\f]+", " ", "".join(current)).strip(" ")
        if text:
            blocks.append(text)
        current.clear()

    class Reader(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            nonlocal skip
            if tag in ("script", "style", "code", "pre", "kbd", "svg"):
                skip += 1
            if tag in _BLOCK_TAGS:
                flush()
            for name, value in attrs:
                if name in ("title", "aria-label", "alt", "placeholder") and value:
                    blocks.append(re.sub(r"[ \t\r\n\f]+", " ", value).strip(" "))
            if ("aria-hidden", "true") in attrs:
                hidden.append(tag)  # a symbol (✓ ! ⊘), read by nobody as text

        def handle_endtag(self, tag: str) -> None:
            nonlocal skip
            if tag in ("script", "style", "code", "pre", "kbd", "svg"):
                skip = max(0, skip - 1)
            if hidden and hidden[-1] == tag:
                hidden.pop()
            if tag in _BLOCK_TAGS:
                flush()

        def handle_data(self, data: str) -> None:
            if not skip and not hidden:
                current.append(data)

    reader = Reader(convert_charrefs=True)
    reader.feed(html)
    reader.close()
    flush()
    return blocks


# --- one apostrophe: the typographic one ----------------------------------------------------

APOSTROPHE = "\u2019"
# A straight apostrophe between two letters (Markdown emphasis between allowed): an elision
# ("l'arbitre", "aujourd'hui", "l'**engagement**").
_ELISION = re.compile(r"(?<=[^\W\d_])'(?=[*_]*[^\W\d_]|%\()")


def apostrophe_text(text: str) -> str:
    """The text with each elision's straight apostrophe made typographic, outside the
    protected spans (placeholders, tags and markup, URLs, code)."""
    spans = _spans(text)
    return "".join(
        APOSTROPHE if char == "'" and _ELISION.match(text, i) and not _inside(spans, i) else char
        for i, char in enumerate(text)
    )


def _apostrophe_edits(path: Path) -> tuple[str, str, list[int]]:
    """(old text, new text, changed line indices) of one French file, by its kind: a
    catalogue's msgstr lines, a Markdown file's prose lines, a template's French text."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    out = list(lines)
    if path.suffix == ".po":
        start = _header_end(lines)
        indices = [i for block in _msgstr_blocks(lines) for i in block if i >= start]
        for index in indices:
            match = _QUOTED.match(lines[index])
            assert match is not None
            body = match.group("body")
            new = apostrophe_text(body)
            if new != body:
                out[index] = lines[index].replace(f'"{body}"', f'"{new}"', 1)
    elif path.suffix == ".md":
        for index, line in _markdown_lines(text):
            out[index] = apostrophe_text(line)
    else:
        for index, line in _template_lines(text):
            out[index] = _TEXT_NODE.sub(
                lambda m: (
                    ">"
                    + (apostrophe_text(m.group(1)) if _FRENCH.search(m.group(1)) else m.group(1))
                    + "<"
                ),
                line,
            )
    changed = [i for i in range(len(lines)) if out[i] != lines[i]]
    return text, "".join(out), changed


def apostrophe_faults(path: Path) -> list[Fault]:
    """Every line of a French file (catalogue, guide, template) with a straight apostrophe
    where French writes ’."""
    text, _new, changed = _apostrophe_edits(path)
    lines = text.splitlines()
    return [Fault(str(path), i + 1, lines[i].strip()[:120]) for i in changed]


def fix_apostrophes(path: Path) -> int:
    """Make a French file's apostrophes typographic, in place; returns how many lines
    changed."""
    _text, new, changed = _apostrophe_edits(path)
    if changed:
        path.write_text(new, encoding="utf-8")
    return len(changed)
