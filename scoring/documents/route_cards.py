"""Route cards: one small card per player, to cut out and hand over at check-in: his table and
position in each round, the donnes he plays there and, at a table of five, when he sits out.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, Paragraph, Spacer, Table

from tournaments.models import Player

from .base import LINE, Renderer, esc, position_label
from .data import FIFTH, Sitting, donne_range, load_seating

GUTTER = 6 * mm


class RouteCardsRenderer(Renderer):
    kind = "route_cards"

    def title(self) -> str:
        return _("Route cards")

    def seat_note(self, sitting: Sitting, position: str) -> str:
        """When this player sits out at a table of five (and whose hand the fifth plays)."""
        if sitting.table_size != 5:
            return ""
        out = [
            str(donne.number)
            for index, donne in enumerate(sitting.donnes)
            if sitting.sitter(index) == position
        ]
        note = _("sits out donne %(donnes)s") % {"donnes": ", ".join(out)} if out else ""
        if position == FIFTH:
            plays = _("plays the hand of whoever sits out")
            note = f"{plays}; {note}" if note else plays
        return note

    def card(self, player: Player, sittings: list[tuple[Sitting, str]], width: float) -> Table:
        styles = self.styles
        sits_out = sorted(
            donne.number
            for sitting, position in sittings
            if sitting.table_size == 5
            for index, donne in enumerate(sitting.donnes)
            if sitting.sitter(index) == position
        )
        total = (
            "<br/>"
            + esc(_("Sits out donnes %(donnes)s") % {"donnes": ", ".join(map(str, sits_out))})
            if sits_out
            else ""
        )
        head = Paragraph(
            f'<font size="11"><b>{esc(player.full_name)}</b></font><br/>'
            f"{esc(_('Licence'))} {esc(player.licence)} · {esc(player.club.name)}{total}",
            styles.small,
        )
        rows: list[list[object]] = [[_("Round"), _("Table"), _("Position"), _("Donnes")]]
        for sitting, position in sorted(sittings, key=lambda s: s[0].round_number):
            first, last = donne_range(sitting.donnes)
            label = _("Fifth player") if position == FIFTH else position_label(position)
            note = self.seat_note(sitting, position)
            where = Paragraph(
                f"<b>{esc(label)}</b>"
                + (f'<br/><font size="7">{esc(note)}</font>' if note else ""),
                styles.cell,
            )
            rows.append(
                [
                    str(sitting.round_number),
                    Paragraph(f"<b>{sitting.table_number}</b>", styles.cell_center),
                    where,
                    f"{first}–{last}" if first else "",
                ]
            )
        inner = Table(
            rows,
            colWidths=[width * 0.16, width * 0.16, width * 0.44, width * 0.2],
            hAlign="LEFT",
        )
        inner.setStyle(styles.grid(("ALIGN", (0, 0), (1, -1), "CENTER")))
        card = Table([[head], [inner]], colWidths=[width])
        card.setStyle(
            [
                ("BOX", (0, 0), (-1, -1), 0.6, LINE),
                ("LEFTPADDING", (0, 0), (-1, -1), 2 * mm),
                ("TOPPADDING", (0, 0), (-1, -1), 1.5 * mm),
                ("BOTTOMPADDING", (0, -1), (-1, -1), 2 * mm),
            ]
        )
        return card

    def story(self) -> list[Flowable]:
        seating = load_seating(self.tournament)
        by_player = seating.by_player()
        players = {
            player.pk: player for sitting in seating.sittings for player in sitting.seats.values()
        }
        ordered = sorted(
            players.values(), key=lambda p: (p.last_name.lower(), p.first_name.lower(), p.pk)
        )
        width = (self.frame_w - GUTTER) / 2
        cards = [self.card(p, by_player[p.pk], width - 4 * mm) for p in self.steps(ordered)]
        story: list[Flowable] = []
        for k in range(0, len(cards), 2):
            pair = cards[k : k + 2]
            row = Table(
                [[*pair, *[""] * (2 - len(pair))]],
                colWidths=[width + GUTTER / 2, width + GUTTER / 2],
            )
            row.setStyle(
                [
                    ("VALIGN", (0, 0), (-1, -1), "TOP"),
                    ("LEFTPADDING", (0, 0), (-1, -1), 0),
                    ("RIGHTPADDING", (0, 0), (-1, -1), 0),
                ]
            )
            story += [row, Spacer(1, 5 * mm)]
        if not cards:
            story.append(
                Paragraph(esc(_("The seating has not been generated yet.")), self.styles.body)
            )
        return story
