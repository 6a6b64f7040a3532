"""Étui sheets: the layout an organiser uses to fill the étuis, one étui set after another.

Why a card-by-card grid: the quickest way to fill an étui is to sort a deck, then walk through
it once, putting each card in the pocket the grid names (N, E, S, W or the chien); the hands
printed below let a second person check each pocket. The whole tournament (each set from a new
page), or one étui set (part = the set's number).
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from reportlab.lib import colors
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, KeepTogether, PageBreak, Paragraph, Spacer, Table

from scoring.rules.cards import DECK, SUITS, Card, parse_hand
from tournaments.models import Donne

from .base import (
    RED,
    FitText,
    Renderer,
    card_trump_label,
    esc,
    face_labels,
    hand_markup,
    position_label,
    rank_legend,
    suit_markup,
)
from .data import donne_range, load_donnes
from .hand_records import confidential_notice, donne_heading

POCKET_COLOURS = {
    "N": colors.HexColor("#dbe8f7"),
    "E": colors.HexColor("#dcf0e1"),
    "S": colors.HexColor("#fbf0cf"),
    "W": colors.HexColor("#f7dde3"),
    "chien": colors.HexColor("#e4e4e4"),
}
# Tight cells: four donnes (grid and hands) to a page.
COMPACT = (
    ("TOPPADDING", (0, 0), (-1, -1), 0.8),
    ("BOTTOMPADDING", (0, 0), (-1, -1), 1.2),
    ("LEFTPADDING", (0, 0), (-1, -1), 2),
    ("RIGHTPADDING", (0, 0), (-1, -1), 2),
)


def pocket_letters() -> dict[str, str]:
    """One letter per pocket in the document's language (Ouest is O in French)."""
    letters = {p: position_label(p)[:1].upper() for p in ("N", "E", "S", "W")}
    letters["chien"] = pgettext("abbreviation of chien on the étui sheet", "Ch")
    return letters


def owners(donne: Donne) -> dict[Card, str]:
    """Where each of the 78 cards goes: 'N', 'E', 'S', 'W' or 'chien'."""
    out: dict[Card, str] = {}
    for position in ("N", "E", "S", "W"):
        for card in parse_hand(donne.hand(position)):
            out[card] = position
    for card in parse_hand(donne.chien):
        out[card] = "chien"
    return out


class EtuiSetsRenderer(Renderer):
    kind = "etui_sets"

    def title(self) -> str:
        return _("Étui sets")

    def subtitle(self) -> str:
        if not self.part:
            return ""
        return _("Étui set %(number)s") % {"number": self.part}

    def card_grid(self, donne: Donne, width: float) -> list[Flowable]:
        """Rows ♠ ♥ ♦ ♣ by rank, then one row of the 22 trumps: each cell names the card's
        pocket, on the pocket's colour."""
        fonts, styles = self.fonts, self.styles
        letters = pocket_letters()
        where = owners(donne)
        faces = face_labels()
        ranks = [faces.get(r, str(r)) for r in range(14, 0, -1)]
        first = 12 * mm
        rows: list[list[object]] = [["", *ranks]]
        style: list[tuple[object, ...]] = [
            ("ALIGN", (0, 0), (-1, -1), "CENTER"),
            ("FONTNAME", (0, 0), (0, -1), fonts.condensed_bold),
        ]
        for s, suit in enumerate(SUITS):
            row: list[object] = [Paragraph(suit_markup(fonts, suit), styles.cell_bold)]
            for offset in range(14):
                pocket = where[DECK[s * 14 + offset]]
                row.append(letters[pocket])
                cell = (1 + offset, len(rows))
                style.append(("BACKGROUND", cell, cell, POCKET_COLOURS[pocket]))
            rows.append(row)
        suits = Table(rows, colWidths=[first, *[(width - first) / 14] * 14])
        suits.setStyle(styles.grid(*style, *COMPACT, size=7.5))
        ids = [*range(56, 77), 77]  # 21…1, then the Excuse
        labels = [card_trump_label(DECK[i]) for i in ids]
        trump_style: list[tuple[object, ...]] = [
            ("ALIGN", (0, 0), (-1, -1), "CENTER"),
            ("FONTNAME", (0, 0), (-1, 0), fonts.condensed_bold),
            ("BACKGROUND", (0, 0), (-1, 0), colors.white),
        ]
        pockets: list[object] = [""]
        for k, i in enumerate(ids):
            pocket = where[DECK[i]]
            pockets.append(letters[pocket])
            trump_style.append(("BACKGROUND", (1 + k, 1), (1 + k, 1), POCKET_COLOURS[pocket]))
        trumps = Table(
            [[_("Trumps"), *labels], pockets],
            colWidths=[first, *[(width - first) / 22] * 22],
        )
        trumps.setStyle(styles.grid(*trump_style, *COMPACT, size=7, header=False))
        return [suits, trumps]

    def hands_row(self, donne: Donne) -> Table:
        """The four hands and the chien, to check each pocket once filled."""
        fonts = self.fonts
        letters = pocket_letters()
        style_ = ParagraphStyle("hands", fontName=fonts.condensed, fontSize=7, leading=8.2)
        cells = []
        for position in ("N", "E", "S", "W"):
            title = f"<b>{letters[position]} — {esc(position_label(position))}</b>"
            if donne.dealer == position:
                title += f' <font color="#c0161d"><b>· {esc(_("dealer"))}</b></font>'
            cells.append(
                Paragraph(f"{title} ☐<br/>{hand_markup(fonts, donne.hand(position))}", style_)
            )
        cells.append(
            Paragraph(
                f"<b>{letters['chien']} — {esc(_('Chien'))}</b> ☐<br/>"
                f"{hand_markup(fonts, donne.chien)}",
                style_,
            )
        )
        table = Table([cells], colWidths=[self.frame_w / 5] * 5)
        style = [("VALIGN", (0, 0), (-1, -1), "TOP")]
        for k, pocket in enumerate(("N", "E", "S", "W", "chien")):
            style.append(("BACKGROUND", (k, 0), (k, 0), POCKET_COLOURS[pocket]))
        table.setStyle(self.styles.grid(*style, *COMPACT, header=False))
        return table

    def donne_block(self, donne: Donne) -> KeepTogether:
        """One donne: its number, étui set and dealer large on the left, the grid on the
        right, the hands below — a quarter of a page."""
        f = self.fonts
        strip_w = 27 * mm
        strip = [
            FitText(donne_heading(donne), font=f.bold, size=14, floor=10, space_after=1 * mm),
            FitText(
                _("Étui set %(number)s") % {"number": donne.etui_set.number},
                font=f.bold,
                size=10.5,
                floor=8,
                space_after=1 * mm,
            ),
            FitText(
                _("Dealer: %(position)s") % {"position": position_label(donne.dealer)},
                font=f.bold,
                size=9,
                floor=7,
                colour=RED,
            ),
        ]
        top = Table(
            [[strip, self.card_grid(donne, self.frame_w - strip_w)]],
            colWidths=[strip_w, self.frame_w - strip_w],
        )
        top.setStyle(
            [
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("LEFTPADDING", (0, 0), (-1, -1), 0),
                ("RIGHTPADDING", (0, 0), (-1, -1), 0),
                ("TOPPADDING", (0, 0), (-1, -1), 0),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 0),
            ]
        )
        return KeepTogether([top, Spacer(1, 1.2 * mm), self.hands_row(donne), Spacer(1, 4 * mm)])

    def page_notice(self) -> str:
        return confidential_notice(self.tournament)

    def story(self) -> list[Flowable]:
        donnes = load_donnes(self.tournament, etui_set=self.part)
        sets: dict[int, list[Donne]] = {}
        for donne in donnes:
            sets.setdefault(donne.etui_set.number, []).append(donne)
        story: list[Flowable] = []
        letters = pocket_letters()
        legend = _(
            "Sort a deck (♠ ♥ ♦ ♣ from the king down, then the trumps 21 to 1 and the Excuse), "
            "then put each card in "
            "the pocket shown: %(pockets)s. Tick each pocket once checked against the hands."
        ) % {
            "pockets": ", ".join(
                f"{letters[p]} = {position_label(p)}" for p in ("N", "E", "S", "W")
            )
            + f", {letters['chien']} = {_('Chien')}"
        }
        done = 0
        for index, (number, members) in enumerate(sorted(sets.items())):
            if index:
                story.append(PageBreak())
            first, last = donne_range(members)
            story.append(
                Paragraph(
                    esc(
                        _("Étui set %(number)s — donnes %(first)s to %(last)s")
                        % {"number": number, "first": first, "last": last}
                    ),
                    self.styles.h3,
                )
            )
            story.append(Paragraph(f"{esc(legend)} {rank_legend(self.fonts)}", self.styles.muted))
            story.append(Spacer(1, 2 * mm))
            for donne in members:
                self.data_step(done, len(donnes))
                done += 1
                story.append(self.donne_block(donne))
        if not donnes:
            story.append(Paragraph(esc(_("No donnes have been generated yet.")), self.styles.body))
        return story
