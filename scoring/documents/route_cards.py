"""Route cards: one small card per player, to cut out and hand over at check-in: his table and
position in each round, the donnes he plays there and, at a table of five, when he sits out.

Once cut, a card travels alone in a pocket: each carries the tournament, its date and the club,
and crop marks at its corners show where to cut. Every name is fitted (`FitText`): a long one
wraps at spaces and hyphens instead of running into the next column or card.
"""

from __future__ import annotations

from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, Paragraph, Spacer, Table

from tournaments.models import Player

from .base import LINE, MUTED, FitText, Renderer, esc, position_label
from .data import FIFTH, Sitting, by_name, donne_range, load_seating

GUTTER = 10 * mm  # between two cards: room for the crop marks and the scissors
MARK = 3 * mm  # length of a crop mark
MARK_GAP = 1.2 * mm  # between a card's corner and its marks


class CutMarks(Flowable):
    """A flowable (the card) with crop marks at its four corners, drawn outside it in the
    gutter: cut along them and the card comes out the same size every time."""

    def __init__(self, content: Flowable) -> None:
        super().__init__()
        self.content = content

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        self.width, self.height = self.content.wrap(avail_width, avail_height)
        return self.width, self.height

    def draw(self) -> None:
        self.content.drawOn(self.canv, 0, 0)
        canvas = self.canv
        canvas.saveState()
        canvas.setStrokeColor(MUTED)
        canvas.setLineWidth(0.3)
        w, h = self.width, self.height
        for x, y, dx, dy in ((0, 0, -1, -1), (w, 0, 1, -1), (0, h, -1, 1), (w, h, 1, 1)):
            canvas.line(x + dx * MARK_GAP, y, x + dx * (MARK_GAP + MARK), y)
            canvas.line(x, y + dy * MARK_GAP, x, y + dy * (MARK_GAP + MARK))
        canvas.restoreState()


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
        note = (
            ngettext("sits out donne %(donnes)s", "sits out donnes %(donnes)s", len(out))
            % {"donnes": ", ".join(out)}
            if out
            else ""
        )
        if position == FIFTH:
            plays = _("plays the hand of whoever sits out")
            note = pgettext("list separator", "; ").join((plays, note)) if note else plays
        return note

    def confirmation_codes(self) -> dict[int, str]:
        """Each player's personal code, typed to confirm a result entered at his table."""
        if not hasattr(self, "_codes"):
            from tournaments.selectors import player_codes

            self._codes = player_codes(self.tournament)
        return self._codes

    def event_line(self) -> str:
        """The tournament, its date and the club: on every card, which travels alone."""
        t = self.tournament
        return f"{t.name} · {date_format(t.date, 'DATE_FORMAT')} · {t.club.name}"

    def stop(self, sitting: Sitting, position: str) -> list[object]:
        """One row of the card: a round's table, position and donnes (and any note)."""
        f = self.fonts
        first, last = donne_range(sitting.donnes)
        label = _("Fifth player") if position == FIFTH else position_label(position)
        note = self.seat_note(sitting, position)
        where: list[Flowable] = [FitText(label, font=f.condensed_bold, size=8.5)]
        if note:
            where.append(FitText(note, font=f.condensed, size=7, floor=6))
        return [
            str(sitting.round_number),
            FitText(str(sitting.table_number), font=f.condensed_bold, size=10, align="c"),
            where,
            f"{first}–{last}" if first else "",
        ]

    def card(self, player: Player, sittings: list[tuple[Sitting, str]], width: float) -> Table:
        f, styles = self.fonts, self.styles
        sits_out = sorted(
            donne.number
            for sitting, position in sittings
            if sitting.table_size == 5
            for index, donne in enumerate(sitting.donnes)
            if sitting.sitter(index) == position
        )
        head: list[Flowable] = [
            FitText(self.event_line(), font=f.condensed, size=7, floor=6, colour=MUTED),
            FitText(player.full_name, font=f.bold, size=11, floor=8, space_after=0.5 * mm),
            FitText(
                f"{_('Licence')} {player.licence} · {player.club.name}",
                font=f.condensed,
                size=7.5,
                floor=6,
            ),
        ]
        code = self.confirmation_codes().get(player.pk)
        if code:
            head.append(
                FitText(
                    _("Confirmation code at the table: %(code)s") % {"code": code},
                    font=f.bold,
                    size=8,
                    floor=6,
                )
            )
        if sits_out:
            head.append(
                FitText(
                    ngettext(
                        "Sits out donne %(donnes)s", "Sits out donnes %(donnes)s", len(sits_out)
                    )
                    % {"donnes": ", ".join(map(str, sits_out))},
                    font=f.condensed_bold,
                    size=7.5,
                    floor=6,
                )
            )
        rows: list[list[object]] = [[_("Round"), _("Table"), _("Position"), _("Donnes")]]
        for sitting, position in sorted(sittings, key=lambda s: s[0].round_number):
            rows.append(self.stop(sitting, position))
        inner_w = width - 4 * mm
        inner = Table(
            rows,
            colWidths=[inner_w * 0.16, inner_w * 0.16, inner_w * 0.46, inner_w * 0.22],
            hAlign="LEFT",
        )
        inner.setStyle(
            styles.grid(
                ("ALIGN", (0, 0), (1, -1), "CENTER"),
                ("ALIGN", (3, 1), (3, -1), "CENTER"),
            )
        )
        card = Table([[head], [inner]], colWidths=[width])
        card.setStyle(
            [
                ("BOX", (0, 0), (-1, -1), 0.6, LINE),
                ("LEFTPADDING", (0, 0), (-1, -1), 2 * mm),
                ("RIGHTPADDING", (0, 0), (-1, -1), 2 * mm),
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
        ordered = sorted(players.values(), key=by_name)
        # Two cards a row, a gutter between them and room for the crop marks on the outer
        # edges.
        width = (self.frame_w - GUTTER - 2 * (MARK + MARK_GAP)) / 2
        cards = [CutMarks(self.card(p, by_player[p.pk], width)) for p in self.steps(ordered)]
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
                    ("ALIGN", (0, 0), (0, 0), "LEFT"),
                    ("ALIGN", (1, 0), (1, 0), "RIGHT"),
                    ("LEFTPADDING", (0, 0), (-1, -1), 0),
                    ("RIGHTPADDING", (0, 0), (-1, -1), 0),
                    ("TOPPADDING", (0, 0), (-1, -1), MARK + MARK_GAP),
                    ("BOTTOMPADDING", (0, 0), (-1, -1), MARK + MARK_GAP),
                ]
            )
            story += [row, Spacer(1, 2 * mm)]
        if not cards:
            story.append(
                Paragraph(esc(_("The seating has not been generated yet.")), self.styles.body)
            )
        return story
