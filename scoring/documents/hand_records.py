"""Hand records: each donne as a diagram — North at the top, West and East on the sides,
South at the bottom, the chien in the middle — with the dealer and the étui set prominent,
cards sorted by suit (♠ ♥ ♦ ♣, hearts and diamonds in red), the trumps with their count and
the bouts in bold.

Four donnes to an A4 page (two by two), a legend of the letters in the document's language,
and, while the tournament is not over, "confidential" on every page: hand records printed
before the end must not reach a player who has donnes still to play.

The whole tournament, or one étui set (part = the set's number) to hand out after a relais.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, Paragraph, Spacer, Table, TableStyle

from tournaments.models import Donne, Tournament

from .base import LIGHT, LINE, RED, Renderer, esc, hand_markup, position_label, rank_legend
from .data import donne_range, load_donnes

COLUMNS = 2  # diagrams side by side; two rows of them make four donnes a page
GAP = 5 * mm


def donne_heading(donne: Donne) -> str:
    return _("Donne %(number)s") % {"number": donne.number}


def tournament_over(tournament: Tournament) -> bool:
    return tournament.status in (Tournament.Status.FINISHED, Tournament.Status.PUBLISHED)


def confidential_notice(tournament: Tournament) -> str:
    """The warning printed on hand records (and étui sheets) before the tournament ends."""
    if tournament_over(tournament):
        return ""
    return _("confidential — do not circulate before the end of the tournament")


def donne_diagram(renderer: Renderer, donne: Donne, *, width: float) -> Table:
    """The compass diagram of one donne (a 3 × 3 table), the dealer's hand framed in red."""
    fonts = renderer.fonts
    style = ParagraphStyle("hand", fontName=fonts.condensed, fontSize=8.5, leading=10.5)
    dealer_word = esc(_("dealer"))

    def hand_cell(position: str) -> Paragraph:
        title = f"<b>{esc(position_label(position))}</b>"
        if donne.dealer == position:
            title = f'{title} <font color="#c0161d"><b>· {dealer_word}</b></font>'
        return Paragraph(f"{title}<br/>{hand_markup(fonts, donne.hand(position))}", style)

    etui = _("Étui set %(number)s") % {"number": donne.etui_set.number}
    dealer = _("Dealer: %(position)s") % {"position": position_label(donne.dealer)}
    centre = Paragraph(
        f'<font size="14"><b>{esc(donne_heading(donne))}</b></font><br/>'
        f'<font size="10.5"><b>{esc(etui)}</b></font><br/>'
        f'<font color="#c0161d"><b>{esc(dealer)}</b></font><br/><br/>'
        f"<b>{esc(_('Chien'))}</b><br/>{hand_markup(fonts, donne.chien)}",
        ParagraphStyle("centre", parent=style, leading=13),
    )
    side = width * 0.345
    middle = width - 2 * side
    table = Table(
        [
            ["", hand_cell("N"), ""],
            [hand_cell("W"), centre, hand_cell("E")],
            ["", hand_cell("S"), ""],
        ],
        colWidths=[side, middle, side],
    )
    commands = [
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("VALIGN", (0, 1), (-1, 1), "MIDDLE"),
        ("BOX", (0, 0), (-1, -1), 0.8, LINE),
        ("BACKGROUND", (1, 1), (1, 1), LIGHT),
        ("TOPPADDING", (0, 0), (-1, -1), 3),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 4),
        ("LEFTPADDING", (0, 0), (-1, -1), 4),
        ("RIGHTPADDING", (0, 0), (-1, -1), 3),
    ]
    position_cells = {"N": (1, 0), "W": (0, 1), "E": (2, 1), "S": (1, 2)}
    dealer_cell = position_cells[donne.dealer]
    commands.append(("BOX", dealer_cell, dealer_cell, 1.6, RED))
    table.setStyle(TableStyle(commands))
    return table


class HandRecordsRenderer(Renderer):
    kind = "hand_records"

    def title(self) -> str:
        return _("Hand records")

    def subtitle(self) -> str:
        if not self.part:
            return ""
        first, last = donne_range(self.donnes) if hasattr(self, "donnes") else (0, 0)
        return _("Étui set %(number)s (donnes %(first)s to %(last)s)") % {
            "number": self.part,
            "first": first,
            "last": last,
        }

    def page_notice(self) -> str:
        return confidential_notice(self.tournament)

    def story(self) -> list[Flowable]:
        self.donnes = load_donnes(self.tournament, etui_set=self.part)
        styles = self.styles
        story: list[Flowable] = [
            Paragraph(
                esc(
                    _(
                        "Each donne as dealt in its étui: the dealer's hand is framed, cards "
                        "are sorted by suit, trumps from 21 down with their count (the Excuse "
                        "counted)."
                    )
                )
                + " "
                + rank_legend(self.fonts),
                styles.muted,
            ),
            Spacer(1, 2 * mm),
        ]
        width = (self.frame_w - GAP * (COLUMNS - 1)) / COLUMNS
        diagrams = [donne_diagram(self, d, width=width) for d in self.steps(self.donnes)]
        for k in range(0, len(diagrams), COLUMNS):
            row = diagrams[k : k + COLUMNS]
            cells: list[object] = [*row, *[""] * (COLUMNS - len(row))]
            line = Table([cells], colWidths=[width + GAP / 2] * COLUMNS)
            line.setStyle(
                [
                    ("VALIGN", (0, 0), (-1, -1), "TOP"),
                    ("LEFTPADDING", (0, 0), (-1, -1), 0),
                    ("RIGHTPADDING", (0, 0), (-1, -1), GAP / 2),
                    ("TOPPADDING", (0, 0), (-1, -1), 0),
                    ("BOTTOMPADDING", (0, 0), (-1, -1), 0),
                ]
            )
            story += [line, Spacer(1, 4 * mm)]
        if not self.donnes:
            story.append(Paragraph(esc(_("No donnes have been generated yet.")), styles.body))
        return story
