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
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, KeepTogether, PageBreak, Paragraph, Spacer, Table

from scoring.cards import DECK, SUITS, Card, parse_hand
from tournaments.models import Donne

from .base import (
    FRAME_W,
    Renderer,
    card_trump_label,
    esc,
    hand_markup,
    position_label,
    suit_markup,
)
from .data import donne_range, load_donnes

POCKET_COLOURS = {
    "N": colors.HexColor("#dbe8f7"),
    "E": colors.HexColor("#dcf0e1"),
    "S": colors.HexColor("#fbf0cf"),
    "W": colors.HexColor("#f7dde3"),
    "chien": colors.HexColor("#e4e4e4"),
}
_RANKS = ("R", "D", "C", "V", "10", "9", "8", "7", "6", "5", "4", "3", "2", "1")


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

    def card_grid(self, donne: Donne) -> Table:
        """Rows ♠ ♥ ♦ ♣ by rank, then the trumps: each cell names the card's pocket."""
        fonts, styles = self.fonts, self.styles
        letters = pocket_letters()
        where = owners(donne)
        trumps_label = _("Trumps")
        head = ["", *_RANKS]
        rows: list[list[object]] = [head]
        style: list[tuple[object, ...]] = [
            ("ALIGN", (1, 0), (-1, -1), "CENTER"),
            ("FONTNAME", (0, 0), (0, -1), fonts.condensed_bold),
        ]
        for s, suit in enumerate(SUITS):
            row: list[object] = [Paragraph(suit_markup(fonts, suit), styles.cell_bold)]
            for offset in range(14):
                pocket = where[DECK[s * 14 + offset]]
                row.append(letters[pocket])
                style.append(
                    (
                        "BACKGROUND",
                        (1 + offset, len(rows)),
                        (1 + offset, len(rows)),
                        POCKET_COLOURS[pocket],
                    )
                )
            rows.append(row)
        trump_lines = [list(range(56, 70)), [*range(70, 77), 77]]  # 21…8, then 7…1 and Excuse
        for ids in trump_lines:
            labels = [card_trump_label(DECK[i]) for i in ids]
            rows.append([trumps_label, *labels, *[""] * (14 - len(ids))])
            style.append(("BACKGROUND", (0, len(rows) - 1), (-1, len(rows) - 1), colors.white))
            style.append(
                ("FONTNAME", (1, len(rows) - 1), (-1, len(rows) - 1), fonts.condensed_bold)
            )
            row = [""]
            for k, i in enumerate(ids):
                pocket = where[DECK[i]]
                row.append(letters[pocket])
                style.append(
                    ("BACKGROUND", (1 + k, len(rows)), (1 + k, len(rows)), POCKET_COLOURS[pocket])
                )
            rows.append([*row, *[""] * (14 - len(ids))])
        first = 22 * mm
        table = Table(rows, colWidths=[first, *[(FRAME_W - first) / 14] * 14])
        table.setStyle(styles.grid(*style, size=9))
        return table

    def hands_row(self, donne: Donne) -> Table:
        """The four hands and the chien, to check each pocket once filled."""
        fonts, styles = self.fonts, self.styles
        letters = pocket_letters()
        cells = []
        for position in ("N", "E", "S", "W"):
            title = f"{letters[position]} — {esc(position_label(position))}"
            if donne.dealer == position:
                title += f" · {esc(_('dealer'))}"
            cells.append(
                Paragraph(
                    f"<b>{title}</b> ☐<br/>{hand_markup(fonts, donne.hand(position))}",
                    styles.small,
                )
            )
        cells.append(
            Paragraph(
                f"<b>{letters['chien']} — {esc(_('Chien'))}</b> ☐<br/>"
                f"{hand_markup(fonts, donne.chien)}",
                styles.small,
            )
        )
        table = Table([cells], colWidths=[FRAME_W / 5] * 5)
        style = [("VALIGN", (0, 0), (-1, -1), "TOP")]
        for k, pocket in enumerate(("N", "E", "S", "W", "chien")):
            style.append(("BACKGROUND", (k, 0), (k, 0), POCKET_COLOURS[pocket]))
        table.setStyle(styles.grid(*style, header=False))
        return table

    def donne_block(self, donne: Donne) -> KeepTogether:
        heading = _("Donne %(number)s — étui set %(set)s — dealer: %(dealer)s") % {
            "number": donne.number,
            "set": donne.etui_set.number,
            "dealer": position_label(donne.dealer),
        }
        return KeepTogether(
            [
                Paragraph(esc(heading), self.styles.h2),
                self.card_grid(donne),
                Spacer(1, 2 * mm),
                self.hands_row(donne),
                Spacer(1, 7 * mm),
            ]
        )

    def story(self) -> list[Flowable]:
        donnes = load_donnes(self.tournament, etui_set=self.part)
        sets: dict[int, list[Donne]] = {}
        for donne in donnes:
            sets.setdefault(donne.etui_set.number, []).append(donne)
        story: list[Flowable] = []
        letters = pocket_letters()
        legend = _(
            "Sort a deck (♠ ♥ ♦ ♣ from the king down, then the trumps), then put each card in "
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
                    self.styles.title,
                )
            )
            story.append(Paragraph(esc(legend), self.styles.muted))
            story.append(Spacer(1, 3 * mm))
            for donne in members:
                self.data_step(done, len(donnes))
                done += 1
                story.append(self.donne_block(donne))
        if not donnes:
            story.append(Paragraph(esc(_("No donnes have been generated yet.")), self.styles.body))
        return story
