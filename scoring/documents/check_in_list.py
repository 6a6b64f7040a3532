"""Check-in list: every registered player by name with his licence and club, a box to tick on
arrival and room to sign — the sheet the organiser keeps at the door."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, Paragraph, Spacer, Table

from .base import FitText, Renderer, esc
from .data import registrations


class CheckInListRenderer(Renderer):
    kind = "check_in_list"

    def title(self) -> str:
        return _("Check-in list")

    def story(self) -> list[Flowable]:
        styles = self.styles
        entries = registrations(self.tournament)
        story: list[Flowable] = [
            Paragraph(esc(self.title()), styles.title),
            Paragraph(
                esc(
                    ngettext(
                        "%(count)s player registered. Tick the box and have the player sign "
                        "on arrival; check the licence number against the licence card.",
                        "%(count)s players registered. Tick the box and have the player sign "
                        "on arrival; check the licence number against the licence card.",
                        len(entries),
                    )
                    % {"count": len(entries)}
                ),
                styles.muted,
            ),
            Spacer(1, 3 * mm),
        ]
        head = ["#", _("Licence"), _("Name"), _("Club"), _("Here"), _("Signature")]
        # Headers shrink rather than break a word ("Présent" in a narrow column).
        rows: list[list[object]] = [
            [FitText(h, font=self.fonts.condensed_bold, size=8, align="c") for h in head]
        ]
        for index, registration in enumerate(self.steps(entries), start=1):
            player = registration.player
            rows.append(
                [
                    str(index),
                    player.licence,
                    FitText(
                        f"{player.last_name} {player.first_name}",
                        font=self.fonts.condensed_bold,
                        size=9,
                    ),
                    FitText(player.club.name, font=self.fonts.condensed, size=8.5),
                    "",
                    "",
                ]
            )
        if not entries:
            story.append(Paragraph(esc(_("Nobody is registered yet.")), styles.body))
            return story
        widths = [9 * mm, 18 * mm, 58 * mm, 43 * mm, 14 * mm]
        widths.append(self.frame_w - sum(widths))
        table = Table(rows, colWidths=widths, repeatRows=1)
        # Tall rows: room to sign (a long name wraps and the row grows with it).
        table.setStyle(
            styles.grid(
                ("ALIGN", (0, 0), (-1, 0), "CENTER"),
                ("ALIGN", (0, 1), (1, -1), "CENTER"),
                ("TOPPADDING", (0, 1), (-1, -1), 8),
                ("BOTTOMPADDING", (0, 1), (-1, -1), 8),
            )
        )
        story.append(table)
        return story
