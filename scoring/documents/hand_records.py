"""Hand records: each donne as a diagram — North at the top, West and East on the sides,
South at the bottom, the chien in the middle — with the dealer marked, cards sorted by suit
(♠ ♥ ♦ ♣, hearts and diamonds in red) and the trumps with their count.

The whole tournament, or one étui set (part = the set's number) to hand out after a relais.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, KeepTogether, Paragraph, Spacer, Table, TableStyle

from tournaments.models import Donne

from .base import FRAME_W, LIGHT, LINE, Renderer, esc, hand_markup, position_label
from .data import donne_range, load_donnes


def donne_heading(donne: Donne) -> str:
    return _("Donne %(number)s") % {"number": donne.number}


def donne_diagram(renderer: Renderer, donne: Donne, *, width: float) -> Table:
    """The compass diagram of one donne (a 3 × 3 table)."""
    styles, fonts = renderer.styles, renderer.fonts

    def hand_cell(position: str) -> Paragraph:
        title = esc(position_label(position))
        if donne.dealer == position:
            title = f"{title} · {esc(_('dealer'))}"
        return Paragraph(
            f"<b>{title}</b><br/>{hand_markup(fonts, donne.hand(position))}", styles.hand
        )

    centre = Paragraph(
        f'<font size="13"><b>{esc(donne_heading(donne))}</b></font><br/>'
        f"{esc(_('Étui set %(number)s') % {'number': donne.etui_set.number})}<br/>"
        f"{esc(_('Dealer: %(position)s') % {'position': position_label(donne.dealer)})}<br/><br/>"
        f"<b>{esc(_('Chien'))}</b><br/>{hand_markup(fonts, donne.chien)}",
        styles.hand,
    )
    side = width * 0.32
    middle = width - 2 * side
    table = Table(
        [
            ["", hand_cell("N"), ""],
            [hand_cell("W"), centre, hand_cell("E")],
            ["", hand_cell("S"), ""],
        ],
        colWidths=[side, middle, side],
    )
    style = [
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("VALIGN", (0, 1), (-1, 1), "MIDDLE"),
        ("BOX", (0, 0), (-1, -1), 0.8, LINE),
        ("BACKGROUND", (1, 1), (1, 1), LIGHT),
        ("TOPPADDING", (0, 0), (-1, -1), 3),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 4),
        ("LEFTPADDING", (0, 0), (-1, -1), 6),
    ]
    position_cells = {"N": (1, 0), "W": (0, 1), "E": (2, 1), "S": (1, 2)}
    dealer_cell = position_cells[donne.dealer]
    style.append(("BOX", dealer_cell, dealer_cell, 1.6, LINE))
    table.setStyle(TableStyle(style))
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

    def story(self) -> list[Flowable]:
        self.donnes = load_donnes(self.tournament, etui_set=self.part)
        story: list[Flowable] = [
            Paragraph(esc(self.title()), self.styles.title),
            Paragraph(
                esc(
                    _(
                        "Each donne as dealt in its étui: the dealer's hand is framed, cards "
                        "are sorted by suit, trumps from 21 down with their count (the Excuse "
                        "counted)."
                    )
                ),
                self.styles.muted,
            ),
            Spacer(1, 3 * mm),
        ]
        width = FRAME_W
        for donne in self.steps(self.donnes):
            story.append(KeepTogether([donne_diagram(self, donne, width=width), Spacer(1, 6 * mm)]))
        if not self.donnes:
            story.append(Paragraph(esc(_("No donnes have been generated yet.")), self.styles.body))
        return story
