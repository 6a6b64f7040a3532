"""Fonts of the PDFs, registered once per process.

Why DejaVu: the documents need French accents and the suit symbols ♠ ♥ ♦ ♣, which the PDF
standard fonts (Helvetica…) do not have. Debian's fonts-dejavu-core provides them (installed
by .ci/run); without it we fall back to ReportLab's bundled Vera (accents, no suit symbols),
and the symbols are then written as letters so that nothing prints as an empty box.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

import reportlab
from reportlab.lib.fonts import addMapping
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

DEJAVU_DIRS = [
    Path(os.environ.get("TAROT_FONT_DIR", "/usr/share/fonts/truetype/dejavu")),
    Path("/usr/share/fonts/dejavu"),
    Path("/usr/share/fonts/TTF"),
]
VERA_DIR = Path(reportlab.__file__).parent / "fonts"

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_LETTERS = {"S": "S", "H": "H", "D": "D", "C": "C"}


@dataclass(frozen=True)
class Fonts:
    regular: str
    bold: str
    condensed: str
    condensed_bold: str
    has_suit_symbols: bool

    def suit(self, suit: str) -> str:
        """The symbol of a suit ('S', 'H', 'D', 'C'), or its letter if the font lacks it."""
        return (SUIT_SYMBOLS if self.has_suit_symbols else SUIT_LETTERS)[suit]


_lock = threading.Lock()
_fonts: Fonts | None = None


def _find(name: str) -> Path | None:
    for folder in DEJAVU_DIRS:
        path = folder / name
        if path.is_file():
            return path
    return None


def _register(name: str, path: Path) -> TTFont:
    font = TTFont(name, str(path))
    pdfmetrics.registerFont(font)
    return font


def register_fonts() -> Fonts:
    """Register the fonts with ReportLab (once) and say which names to use."""
    global _fonts
    if _fonts is not None:
        return _fonts
    with _lock:
        if _fonts is not None:
            return _fonts
        regular_path, bold_path = _find("DejaVuSans.ttf"), _find("DejaVuSans-Bold.ttf")
        if regular_path and bold_path:
            regular = _register("DejaVuSans", regular_path)
            _register("DejaVuSans-Bold", bold_path)
            family = ("DejaVuSans", "DejaVuSans-Bold")
            cond_path = _find("DejaVuSansCondensed.ttf")
            cond_bold_path = _find("DejaVuSansCondensed-Bold.ttf")
            if cond_path and cond_bold_path:
                _register("DejaVuSansCondensed", cond_path)
                _register("DejaVuSansCondensed-Bold", cond_bold_path)
                condensed = ("DejaVuSansCondensed", "DejaVuSansCondensed-Bold")
            else:
                condensed = family
        else:
            regular = _register("Vera", VERA_DIR / "Vera.ttf")
            _register("Vera-Bold", VERA_DIR / "VeraBd.ttf")
            family = condensed = ("Vera", "Vera-Bold")
        for name, bold in {family, condensed}:
            addMapping(name, 0, 0, name)
            addMapping(name, 1, 0, bold)
            addMapping(name, 0, 1, name)
            addMapping(name, 1, 1, bold)
        symbols = all(ord(s) in regular.face.charToGlyph for s in SUIT_SYMBOLS.values())
        _fonts = Fonts(family[0], family[1], condensed[0], condensed[1], symbols)
        return _fonts
