"""Arbiter's log: the tournament's ledger printed — every entry, oldest first, with when, who,
what, on which table, donne or player, why, and what changed (before → after). Entries are
printed generically from their stored before and after, so that kinds of entries added later
print too: results and penalties are described as on the arbiter's screen (with the player's
current name), any other entry key by key."""

from __future__ import annotations

from django.utils.formats import date_format
from django.utils.timezone import localtime
from django.utils.translation import gettext as _
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, Paragraph, Spacer, Table

from tournaments.ledger_text import CLAIM_ACTIONS, entry_text
from tournaments.models import ArbiterCall, Claim, LedgerEntry
from tournaments.services.penalties import penalty_describe

from .base import FitText, Renderer, esc
from .data import arbiter_calls, ledger


def described(entry: LedgerEntry) -> list[str]:
    """What an entry changed, for people to read (`tournaments.ledger_text`): a result's and
    a penalty's before and after as one line each (a penalty with the player's current
    name), any other entry one "Field: before → after" line per field."""
    text = entry_text(entry)
    penalty = getattr(entry, "penalty", None)
    if penalty is not None:
        name = penalty.player.full_name  # the current name, not the one stored then
        lines = []
        if entry.before:
            lines.append(
                f"{_('Before:')} {penalty_describe({**entry.before, 'player_name': name})}"
            )
        if entry.after:
            lines.append(f"{_('After:')} {penalty_describe({**entry.after, 'player_name': name})}")
        return lines
    if getattr(entry, "result_id", None) is not None and entry.action not in CLAIM_ACTIONS:
        lines = []
        if entry.before:
            lines.append(f"{_('Before:')} {text.before_text}")
        if entry.after:
            lines.append(f"{_('After:')} {text.after_text}")
        return lines
    return [change.text() for change in text.changes]


def actor_name(entry: LedgerEntry) -> str:
    user = entry.actor
    if user is None:
        return ""
    return user.get_full_name() or user.get_username()


def subject(entry: LedgerEntry) -> str:
    """What the entry is about: a table's result on a donne, a player's penalty."""
    parts = []
    result = getattr(entry, "result", None)
    if result is not None:
        parts.append(
            _("table %(table)s, donne %(donne)s")
            % {"table": result.table.number, "donne": result.donne.number}
        )
    penalty = getattr(entry, "penalty", None)
    if penalty is not None:
        text = penalty.player.full_name
        if penalty.donne is not None:
            text += ", " + _("donne %(number)s") % {"number": penalty.donne.number}
        parts.append(text)
    return " · ".join(parts)


class ArbiterLogRenderer(Renderer):
    kind = "arbiter_log"
    landscape = True

    def title(self) -> str:
        return _("Arbiter's log")

    def fit(self, text: str, size: float = 8.5) -> FitText:
        return FitText(text, font=self.fonts.condensed, size=size, prefer_lines=3)

    def story(self) -> list[Flowable]:
        styles = self.styles
        entries = ledger(self.tournament)
        story: list[Flowable] = [
            Paragraph(esc(self.title()), styles.title),
            Paragraph(
                esc(
                    _(
                        "Every entry of the ledger, oldest first: results entered and "
                        "corrected, annulments, penalties given and withdrawn. The ledger is "
                        "never changed: a correction is a new entry."
                    )
                ),
                styles.muted,
            ),
            Spacer(1, 3 * mm),
        ]
        if not entries:
            story.append(Paragraph(esc(_("The ledger is empty.")), styles.body))
            return [*story, *self.calls_story(), *self.claims_section()]
        head = ["#", _("When"), _("By"), _("Action"), _("About"), _("Reason"), _("Change")]
        rows: list[list[object]] = [[Paragraph(esc(h), styles.head_cell) for h in head]]
        for index, entry in enumerate(self.steps(entries), start=1):
            text = entry_text(entry)
            change = [self.fit(line, 7.5) for line in described(entry)]
            rows.append(
                [
                    str(index),
                    self.fit(date_format(localtime(entry.at), "SHORT_DATETIME_FORMAT")),
                    self.fit(actor_name(entry)),
                    self.fit(text.action_display),
                    self.fit(subject(entry)),
                    self.fit(text.reason),
                    change,
                ]
            )
        widths = [9 * mm, 27 * mm, 28 * mm, 30 * mm, 42 * mm, 50 * mm]
        widths.append(self.frame_w - sum(widths))
        table = Table(rows, colWidths=widths, repeatRows=1)
        table.setStyle(styles.grid(("VALIGN", (0, 0), (-1, -1), "TOP")))
        story.append(table)
        return [*story, *self.calls_story(), *self.claims_section()]

    def calls_story(self) -> list[Flowable]:
        """The calls to the arbiter (issue 34): when, table, donne, irregularity, who called,
        the time to the arbiter and the ruling."""
        styles = self.styles
        calls = arbiter_calls(self.tournament)
        story: list[Flowable] = [
            Spacer(1, 5 * mm),
            Paragraph(esc(_("Calls to the arbiter")), styles.h2),
        ]
        if not calls:
            story.append(Paragraph(esc(_("No call to the arbiter.")), styles.body))
            return story
        head = [
            _("When"),
            _("Table"),
            _("Donne"),
            _("Irregularity"),
            _("Called by"),
            _("Time to the arbiter"),
            _("Ruling"),
        ]
        rows: list[list[object]] = [[Paragraph(esc(h), styles.head_cell) for h in head]]
        for call in calls:
            rows.append(
                [
                    self.fit(date_format(localtime(call.called_at), "SHORT_DATETIME_FORMAT")),
                    str(call.table.number),
                    self.fit(self.donne_text(call)),
                    self.fit(self.irregularity_text(call)),
                    self.fit(call.called_by.full_name),
                    self.fit(self.waited(call)),
                    self.fit(self.ruling_text(call)),
                ]
            )
        widths = [27 * mm, 14 * mm, 22 * mm, 50 * mm, 40 * mm, 26 * mm]
        widths.append(self.frame_w - sum(widths))
        table = Table(rows, colWidths=widths, repeatRows=1)
        table.setStyle(styles.grid(("VALIGN", (0, 0), (-1, -1), "TOP")))
        story.append(table)
        return story

    @staticmethod
    def donne_text(call: ArbiterCall) -> str:
        if call.trick:
            return _("%(donne)s, trick %(trick)s") % {
                "donne": call.donne.number,
                "trick": call.trick,
            }
        return str(call.donne.number)

    @staticmethod
    def irregularity_text(call: ArbiterCall) -> str:
        text = str(call.get_irregularity_display())
        return f"{text} — {call.note}" if call.note else text

    @staticmethod
    def waited(call: ArbiterCall) -> str:
        seconds = call.seconds_to_arbiter
        if seconds is None:
            return "—"
        minutes, rest = divmod(round(seconds), 60)
        return f"{minutes} min {rest:02d} s" if minutes else f"{rest} s"

    @staticmethod
    def ruling_text(call: ArbiterCall) -> str:
        if not call.ruling:
            return str(call.get_state_display())
        text = str(call.get_ruling_display())
        if call.penalty is not None:
            text += f" · {call.penalty.player.full_name} ({call.penalty.points})"
        if call.ruling_note:
            text += f" — {call.ruling_note}"
        return text

    def claims_section(self) -> list[Flowable]:
        """The claims of the claims window with their outcome (issue 34 §6): when, table and
        donne, about what, who filed it, the claim, and the decision (by whom, when, why, the
        penalty given and whether the result was corrected). Nothing when there is none."""
        styles = self.styles
        rows_in = claims_of(self.tournament)
        if not rows_in:
            return []
        head = [_("Filed"), _("Table"), _("Donne"), _("Claim"), _("Filed by"), _("Decision")]
        rows: list[list[object]] = [[Paragraph(esc(h), styles.head_cell) for h in head]]
        for claim in rows_in:
            rows.append(
                [
                    self.fit(date_format(localtime(claim.filed_at), "SHORT_DATETIME_FORMAT")),
                    str(claim.table.number),
                    str(claim.donne.number),
                    self.fit(
                        _("%(field)s: %(value)s")
                        % {"field": claim.get_kind_display(), "value": claim.text},
                        7.5,
                    ),
                    self.fit(claim_author(claim)),
                    [self.fit(line, 7.5) for line in claim_outcome(claim)],
                ]
            )
        widths = [27 * mm, 14 * mm, 14 * mm, 80 * mm, 35 * mm]
        widths.append(self.frame_w - sum(widths))
        table = Table(rows, colWidths=widths, repeatRows=1)
        table.setStyle(styles.grid(("VALIGN", (0, 0), (-1, -1), "TOP")))
        return [
            Spacer(1, 5 * mm),
            Paragraph(esc(_("Claims")), styles.h2),
            table,
        ]


def claims_of(tournament: object) -> list[Claim]:
    """The tournament's claims, oldest first, with what their lines print (one query)."""
    return list(
        Claim.objects.filter(tournament=tournament)
        .select_related(
            "table", "donne", "filed_by", "recorded_by", "settled_by", "penalty__player"
        )
        .order_by("filed_at", "pk")
    )


def _user_name(user: object) -> str:
    if user is None:
        return ""
    return user.get_full_name() or user.get_username()  # type: ignore[attr-defined]


def claim_author(claim: Claim) -> str:
    """The player who filed it, and the arbiter who recorded it for them."""
    parts = [claim.filed_by.full_name] if claim.filed_by_id else []
    if claim.recorded_by_id:
        parts.append(_("recorded by %(user)s") % {"user": _user_name(claim.recorded_by)})
    return ", ".join(parts)


def claim_outcome(claim: Claim) -> list[str]:
    """The decision in lines: open, or settled by whom, when and why, with the penalty given
    and the correction of the result linked to it."""
    lines = []
    if claim.without_call:
        lines.append(_("Taken without a call: %(reason)s") % {"reason": claim.without_call})
    if claim.is_open:
        return [*lines, str(claim.get_state_display())]
    lines.append(
        f"{claim.get_state_display()} · {_user_name(claim.settled_by)} · "
        f"{date_format(localtime(claim.settled_at), 'SHORT_DATETIME_FORMAT')}"
    )
    lines.append(claim.reason)
    if claim.penalty is not None:
        lines.append(
            _("Penalty: %(penalty)s")
            % {
                "penalty": penalty_describe(
                    {
                        "player_name": claim.penalty.player.full_name,
                        "kind": claim.penalty.kind,
                        "points": claim.penalty.points,
                        "reason": claim.penalty.reason,
                    }
                )
            }
        )
    if claim.correction_id:
        lines.append(_("Result corrected"))
    return lines
