"""Fonts of the PDFs, registered once per process.

Why DejaVu: the documents need French accents and the suit symbols ♠ ♥ ♦ ♣, which the PDF
standard fonts (Helvetica…) do not have. Debian's fonts-dejavu-core provides them (installed
by .ci/run); without it we fall back to ReportLab's bundled Vera (accents, no suit symbols),
and the symbols are then written as letters so that nothing prints as an empty box.

Characters the font of a text lacks (an emoji in a name, a script DejaVu does not cover) are
drawn by a fallback font when one has them: the other DejaVu faces, then any TrueType file
named in TAROT_FALLBACK_FONTS (paths separated by ":") or found among FALLBACK_CANDIDATES
(Noto Sans Symbols 2, Symbola, Droid Sans Fallback). Otherwise they are replaced by U+FFFD "�",
so that the reader sees something is there: never a blank (`font_runs`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
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

FALLBACK_CANDIDATES = [
    Path("/usr/share/fonts/truetype/noto/NotoSansSymbols2-Regular.ttf"),
    Path("/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf"),
    Path("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"),
]
REPLACEMENT = "\ufffd"
# Joiners and variation selectors: invisible on their own, part of the character they follow.
_COMBINING = frozenset("\u200d\ufe0e\ufe0f")

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_LETTERS = {"S": "S", "H": "H", "D": "D", "C": "C"}


@dataclass(frozen=True)
class Fonts:
    regular: str
    bold: str
    condensed: str
    condensed_bold: str
    has_suit_symbols: bool
    fallbacks: tuple[str, ...] = ()

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
        extra = _register_fallbacks()
        _fonts = Fonts(family[0], family[1], condensed[0], condensed[1], symbols, extra)
        _FALLBACKS[:] = [family[0], family[1], condensed[0], *extra]
        font_runs.cache_clear()
        _glyphs_cached.cache_clear()
        for forget in _ON_REGISTERED:  # measured widths depend on the fallbacks just registered
            forget()
        return _fonts


_FALLBACKS: list[str] = []
_ON_REGISTERED: list[Callable[[], object]] = []


def on_registered(forget: Callable[[], object]) -> None:
    """Call `forget` whenever the fonts are registered again: what measured text with the
    previous fonts (`textfit`'s caches) registers here, so the fonts import none of it."""
    if forget not in _ON_REGISTERED:
        _ON_REGISTERED.append(forget)


def _register_fallbacks() -> tuple[str, ...]:
    """Register the extra fallback fonts that exist on this machine (none is required)."""
    paths = [Path(p) for p in os.environ.get("TAROT_FALLBACK_FONTS", "").split(":") if p]
    names = []
    for index, path in enumerate([*paths, *FALLBACK_CANDIDATES]):
        if not path.is_file():
            continue
        name = f"TarotFallback{index}"
        try:
            _register(name, path)
            for bold in (0, 1):
                for italic in (0, 1):
                    addMapping(name, bold, italic, name)
        except Exception:  # an unreadable font is skipped, not fatal
            continue
        names.append(name)
    return tuple(names)


def _glyphs(font: str) -> frozenset[int] | None:
    """The code points a registered TrueType font draws (None: a standard font, not checked)."""
    face = getattr(pdfmetrics.getFont(font), "face", None)
    mapping = getattr(face, "charToGlyph", None)
    return frozenset(mapping) if mapping is not None else None


@lru_cache(maxsize=64)
def _glyphs_cached(font: str) -> frozenset[int] | None:
    return _glyphs(font)


@lru_cache(maxsize=65536)
def font_runs(text: str, font: str) -> tuple[tuple[str, str], ...]:
    """`text` as runs of (font, characters) to draw: each character in `font` if it has it,
    else in the first fallback font that has it, else replaced by U+FFFD (one replacement
    for a sequence of missing characters and the joiners between them, e.g. a family emoji)."""
    own = _glyphs_cached(font)
    if own is None or all(ord(c) in own for c in text):
        return ((font, text),) if text else ()
    runs: list[list[str]] = []
    replaced = False  # the previous character was a replacement
    for char in text:
        code = ord(char)
        if code in own and not (replaced and char in _COMBINING):
            name, out, replaced = font, char, False
        else:
            name = next(
                (f for f in _FALLBACKS if f != font and code in (_glyphs_cached(f) or ())), None
            )
            if name is not None and not (replaced and char in _COMBINING):
                out, replaced = char, False
            elif replaced:
                continue  # the same missing cluster: one replacement is enough
            else:
                name = font if REPLACEMENT_CODE in own else _replacement_font()
                out = REPLACEMENT if name else "?"
                name = name or font
                replaced = True
        if runs and runs[-1][0] == name:
            runs[-1][1] += out
        else:
            runs.append([name, out])
    return tuple((name, part) for name, part in runs)


REPLACEMENT_CODE = ord(REPLACEMENT)


def _replacement_font() -> str | None:
    for name in _FALLBACKS:
        if REPLACEMENT_CODE in (_glyphs_cached(name) or ()):
            return name
    return None
