"""The layout of a PDF read back word by word: where poppler (`pdftotext -bbox-layout`, an
independent reader) finds each word's box, to check that no word overprints another, none
leaves the page or its margins, and no word is split in the middle.

`long_names_tournament` stages a tournament whose player, club, title and venue names and
penalty reasons are 60–90 characters long with accents; `layout_problems` lists what is wrong
on a PDF, in words a failing test can print. Any document kind goes through the same check
(tests/scoring/documents/test_layout.py renders every `Document.Kind`).
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from reportlab.lib.units import mm

from scoring.documents.base import MARGIN
from scoring.documents.textfit import ELLIPSIS
from tests.fixtures.services import require

# What a word's box may share with another's before it counts as overprinting: poppler's boxes
# run from the font's descent to its ascent, so boxes of consecutive lines touch.
OVERLAP_X = 0.6  # pt
OVERLAP_Y = 0.35  # share of the smaller box's height
EDGE = 1.0  # pt a word may reach past the margin (rounding of the boxes)
UNPRINTABLE = 5 * mm  # a printer's grip: nothing above or below it
INK_TOP = (0.928 - 0.76) / 1.164  # share of a word's box above its tallest letter
INK_BOTTOM = 0.2 / 1.164  # share of the box below the line, empty without a descender
DESCENDERS = set("gjpqyQçÇ,;()[]{}|/@µßþ_")


@dataclass(frozen=True)
class Word:
    text: str
    x0: float
    y0: float  # top, from the top of the page (poppler's coordinates)
    x1: float
    y1: float
    line: int  # the index of its line on the page

    def __str__(self) -> str:
        return f"{self.text!r} at ({self.x0:.1f}, {self.y0:.1f})–({self.x1:.1f}, {self.y1:.1f})"


@dataclass
class Page:
    number: int
    width: float
    height: float
    words: list[Word] = field(default_factory=list)

    def text(self) -> str:
        return " ".join(w.text for w in self.words)


def pdf_words(content: bytes) -> list[Page]:
    """Every word of the PDF with its box, page by page (`pdftotext -bbox-layout`)."""
    require("pdftotext (poppler-utils)", shutil.which("pdftotext") is not None)
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "doc.pdf"
        target = Path(folder) / "doc.html"
        source.write_bytes(content)
        subprocess.run(
            ["pdftotext", "-bbox-layout", "-enc", "UTF-8", str(source), str(target)],
            check=True,
            timeout=300,
        )
        xml = target.read_text(encoding="utf-8")
    root = ET.fromstring(re.sub(r"<!DOCTYPE[^>]*>", "", xml))
    pages = []
    for number, page in enumerate(_all(root, "page"), start=1):
        out = Page(number, float(page.get("width", 0)), float(page.get("height", 0)))
        for index, line in enumerate(_all(page, "line")):
            for word in _all(line, "word"):
                out.words.append(
                    Word(
                        word.text or "",
                        float(word.get("xMin", 0)),
                        float(word.get("yMin", 0)),
                        float(word.get("xMax", 0)),
                        float(word.get("yMax", 0)),
                        index,
                    )
                )
        pages.append(out)
    return pages


def _all(node: ET.Element, tag: str) -> list[ET.Element]:
    return [e for e in node.iter() if e.tag.rsplit("}", 1)[-1] == tag]


def ink_top(word: Word) -> float:
    """The top of a word's letters: poppler's box starts at the font's ascent (0.93 em for
    DejaVu, out of a box of 1.16 em), above the tallest letter (0.76 em); on a number set at
    150 pt that empty band is 25 pt tall and would "overlap" the text above it."""
    return word.y0 + INK_TOP * (word.y1 - word.y0)


def ink_bottom(word: Word) -> float:
    """The bottom of a word's letters: the font's descent (0.24 em) only counts for a word
    with a letter that goes below the line (g, p, a comma…)."""
    if any(c in DESCENDERS for c in word.text):
        return word.y1
    return word.y1 - INK_BOTTOM * (word.y1 - word.y0)


def overlaps(page: Page) -> list[tuple[Word, Word]]:
    """Pairs of words whose boxes overlap (beyond the touching of consecutive lines)."""
    found = []
    words = sorted(page.words, key=ink_top)
    tops = [ink_top(w) for w in words]  # each word's ink, measured once
    bottoms = [ink_bottom(w) for w in words]
    for i, a in enumerate(words):
        for j in range(i + 1, len(words)):
            if tops[j] >= a.y1:
                break
            b = words[j]
            wide = min(a.x1, b.x1) - max(a.x0, b.x0)
            high = min(bottoms[i], bottoms[j]) - max(tops[i], tops[j])
            smaller = min(a.y1 - a.y0, b.y1 - b.y0) or 1
            if wide > OVERLAP_X and high > OVERLAP_Y * smaller:
                found.append((a, b))
    return found


def outside(page: Page) -> list[Word]:
    """Words past the left or right margin, or in the printer's grip at the top or bottom."""
    left, right = MARGIN - EDGE, page.width - MARGIN + EDGE
    return [
        w
        for w in page.words
        if w.x0 < left or w.x1 > right or w.y0 < UNPRINTABLE or w.y1 > page.height - UNPRINTABLE
    ]


_HYPHEN_BREAK = re.compile(r"(?<=\w[-\u2010])(?=\w)")
_PUNCTUATION = ',.;:()[]«»"“”·—–/'


def fragments(token: str) -> set[str]:
    """The ways a word may legitimately be printed in parts: runs of its pieces between
    hyphens ("Saint-", "Denis", "Saint-Denis")."""
    pieces = _HYPHEN_BREAK.split(token)
    return {"".join(pieces[i:j]) for i in range(len(pieces)) for j in range(i + 1, len(pieces) + 1)}


def split_words(pages: list[Page], texts: list[str]) -> list[str]:
    """Words of `texts` printed broken elsewhere than after a hyphen: a printed word ends with
    the first part of a word and another printed word on the page starts with the rest
    ("Châteaubri" … "and"); or a word cut with an ellipsis."""
    tokens = {t.strip(_PUNCTUATION) for text in texts for t in text.split()}
    tokens = {t for t in tokens if len(t) >= 2}
    problems = []
    for page in pages:
        printed = {w.text.strip(_PUNCTUATION): w for w in page.words}
        for word in page.words:
            text = word.text.strip(_PUNCTUATION)
            if text.endswith(ELLIPSIS) and any(
                t.startswith(text[:-1]) for t in tokens if text[:-1]
            ):
                problems.append(f"page {page.number}: {word} is cut")
        for token in sorted(tokens):
            pieces = _HYPHEN_BREAK.split(token)
            for i, piece in enumerate(pieces):
                for k in range(1, len(piece)):
                    lefts = ["".join(pieces[a:i]) + piece[:k] for a in range(i + 1)]
                    rights = [
                        piece[k:] + "".join(pieces[i + 1 : b])
                        for b in range(i + 1, len(pieces) + 1)
                    ]
                    left = next((printed[x] for x in lefts if x in printed and len(x) >= 2), None)
                    right = next((printed[x] for x in rights if x in printed), None)
                    if left is not None and right is not None:
                        problems.append(
                            f"page {page.number}: {token!r} is broken in the middle: "
                            f"{left} / {right}"
                        )
    return problems


def missing_words(pages: list[Page], text: str) -> list[str]:
    """Pages on which a word of `text` (e.g. the title in the header) is not printed whole
    or in its hyphen-parts."""
    problems = []
    tokens = [t.strip(_PUNCTUATION) for t in text.split()]
    for page in pages:
        printed = {w.text.strip(_PUNCTUATION) for w in page.words}
        for token in tokens:
            if not token or token in printed:
                continue
            pieces = _HYPHEN_BREAK.split(token)
            if all(any(p in w for w in printed) for p in pieces):
                continue
            problems.append(f"page {page.number}: {token!r} of {text!r} is missing")
    return problems


_LETTERS = re.compile(r"[^\W\d_]+")


def vocabulary(texts: list[str], language: str) -> set[str]:
    """Every run of letters a document may print: those of `texts` (what the club typed, the
    codes it was given) and of the interface's messages in `language` (the catalogues of the
    other languages give their English sources)."""
    from django.conf import settings

    found: set[str] = set()
    for lang in {code for code, _name in settings.LANGUAGES} | {language}:
        found |= _message_runs(lang)
    for text in texts:
        found.update(run.lower() for run in _LETTERS.findall(text))
    return found


@functools.cache
def _message_runs(language: str) -> frozenset[str]:
    """The runs of letters of the interface's messages in `language`, sources and
    translations (read once per process: the catalogues do not change while it runs)."""
    from django.utils.translation import trans_real

    found: set[str] = set()
    for key, value in trans_real.translation(language)._catalog.items():
        for text in (key if isinstance(key, str) else key[0], value):
            found.update(run.lower() for run in _LETTERS.findall(text))
    return frozenset(found)


def foreign_words(pages: list[Page], known: set[str]) -> list[str]:
    """Printed runs of letters that are in no input and no message: a fixed label broken in
    the middle ("Prése" / "nt" for "Présent") reads this way, whatever the text was."""
    problems = []
    for page in pages:
        for word in page.words:
            for run in _LETTERS.findall(word.text):
                if len(run) > 1 and run.lower() not in known:
                    problems.append(f"page {page.number}: {word} is in no input and no message")
    return problems


def layout_problems(
    content: bytes,
    *,
    texts: list[str],
    on_every_page: list[str],
    known: set[str] | None = None,
) -> list[str]:
    """Everything wrong with a PDF's layout: overprinting words, words out of the page or
    margins, words of `texts` split in the middle or cut, words of `on_every_page` (the
    header's title and venue) missing from a page, and with `known` (see `vocabulary`)
    words that are none of those a document may print."""
    pages = pdf_words(content)
    problems = []
    for page in pages:
        for a, b in overlaps(page):
            problems.append(f"page {page.number}: {a} overprints {b}")
        for word in outside(page):
            problems.append(f"page {page.number}: {word} leaves the page or its margins")
    problems += split_words(pages, texts)
    for text in on_every_page:
        problems += missing_words(pages, text)
    if known is not None:
        problems += foreign_words(pages, known)
    return problems
