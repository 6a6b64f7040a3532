"""The tournament's ranking, and every player's results donne by donne, as CSV files for a
spreadsheet, the same bytes for the site and the API.

Why these choices: French Excel splits on ";" and reads "40,5" as a number only with a
decimal comma, and it reads UTF-8 (accents in names) only after a byte-order mark; English
spreadsheets expect "," and a decimal point (the BOM is harmless there and keeps the accents).
Numbers are written by scoring.rules.display, like the screens and the PDFs.

A name or a club is text typed by people: a cell starting with = + - @ (or a tab or a carriage
return) would be run as a formula by a spreadsheet ("CSV injection"), so such a text cell is
prefixed with an apostrophe. Number cells are written by the code and stay numbers (a negative
differential keeps its minus).

The ranking is read from the stored snapshot, never computed on a request: a stale snapshot is
exported as it is, and the caller says so (see `RankingCsv.is_current`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.utils import translation
from django.utils.text import slugify
from django.utils.translation import gettext as _

from scoring.rankings.selectors import (
    FINAL,
    ScoreCardLine,
    ranking_snapshot,
    ranking_view,
    score_cards_from_snapshot,
    snapshot_cached,
)
from scoring.rules import display
from tournaments.models import Tournament

BOM = "\ufeff"
SEPARATOR = {"fr": ";", "en": ","}
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
CONTENT_TYPE = "text/csv; charset=utf-8"


def text_cell(value: Any) -> str:
    """A text a person typed, made safe for a spreadsheet: one starting like a formula is
    prefixed with an apostrophe (shown as typed, never run)."""
    text = "" if value is None else str(value)
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


def csv_text(rows: Iterable[list[str]], language: str) -> str:
    """Rows as CSV in the language's dialect (separator; CRLF line ends), BOM first."""
    out = io.StringIO()
    out.write(BOM)
    writer = csv.writer(out, delimiter=SEPARATOR[display.language_of(language)])
    writer.writerows(rows)
    return out.getvalue()


@dataclass(frozen=True)
class RankingCsv:
    content: bytes
    filename: str
    is_current: bool
    version: int | None
    audience: str = FINAL


def _blank_column(rows: list[list[str]], index: int) -> list[list[str]]:
    """The rows with the column `index` left empty below its heading (the same columns for
    every reader: a spreadsheet's formulas keep their places)."""
    return rows[:1] + [[*row[:index], "", *row[index + 1 :]] for row in rows[1:]]


def ranking_rows(
    tournament: Tournament,
    snapshot: Any,
    current: bool,
    language: str,
    audience: str = FINAL,
    *,
    licences: bool = False,
) -> list:
    """The heading and one row per ranked player of the audience's ranking (players and
    clubs in one query); the licences' column filled only with `licences` (the
    tournament's managers: never to the public), empty otherwise."""
    lang = display.language_of(language)
    view = ranking_view(tournament, snapshot, current, audience=audience)
    matchpoints = view.is_matchpoints
    rows: list[list[str]] = [
        [
            _("Rank"),
            _("Last name"),
            _("First name"),
            _("Licence"),
            _("Club"),
            _("Match points %") if matchpoints else _("Differentials"),
            _("Penalty points"),
            _("Total") + (" (%)" if matchpoints else ""),
            _("Donnes played"),
            _("Donnes compared"),
        ]
    ]
    for line in view.rows:
        player = line.player
        rows.append(
            [
                f"{line.rank}{'=' if line.tied else ''}",
                text_cell(player.last_name),
                text_cell(player.first_name),
                text_cell(player.licence),
                text_cell(player.club.name),
                display.decimal_text(line.differential_total, lang, minus="-"),
                str(line.penalty_points),
                display.decimal_text(line.total, lang, minus="-"),
                str(line.donnes_played),
                str(line.donnes_compared),
            ]
        )
    return rows if licences else _blank_column(rows, 3)


def ranking_filename(tournament: Tournament) -> str:
    """ "classement-tournoi-du-samedi-2026-12-05.csv" (in the active language)."""
    name = slugify(tournament.name) or str(tournament.pk)
    return f"{slugify(_('ranking'))}-{name}-{tournament.date:%Y-%m-%d}.csv"


def ranking_csv(
    tournament: Tournament, language: str, audience: str, *, licences: bool = False
) -> RankingCsv:
    """The audience's ranking (`scoring.rankings.selectors.ranking_audience`: complete donnes only for
    the room during play) of the stored snapshot as CSV in `language` ("fr" or "en"): built
    once per snapshot, audience and language (the same bytes for every reader of the
    audience), never computed here. The licences' column is filled with `licences` only
    (the tournament's managers), empty otherwise."""
    lang = display.language_of(language)
    with translation.override(lang):
        snapshot, current = ranking_snapshot(tournament)

        def build() -> bytes:
            rows = ranking_rows(tournament, snapshot, current, lang, audience, licences=licences)
            return csv_text(rows, lang).encode()

        key = f"csv:{audience}:{int(current)}:{'l' if licences else 'n'}"
        content = snapshot_cached(key, snapshot, build)
        filename = ranking_filename(tournament)
    return RankingCsv(
        content=content,
        filename=filename,
        is_current=current,
        version=snapshot.results_version if snapshot else None,
        audience=audience,
    )


def _line_status(line: ScoreCardLine) -> str:
    """What the score card page says of the donne, in words."""
    if line.hidden:
        return _("Hidden until every table has played it")
    if line.waiting:
        return _("Counted once every table has played it")
    if line.status == "sat_out":
        return _("Sat out")
    if line.status == "pending":
        return _("Being updated") if line.entered else _("Not played yet")
    if line.status == "annulled":
        return _("Annulled")
    if line.all_passed:
        return _("All passed")
    return _("Played")


def score_card_rows(
    tournament: Tournament,
    snapshot: Any,
    current: bool,
    language: str,
    *,
    can_manage: bool,
    viewer_player_id: int | None,
    licences: bool = False,
) -> list[list[str]]:
    """The heading and one row per player and donne, in the order he plays them; a donne
    hidden on his score card page (not finished everywhere) is hidden here too. The
    licences' column is filled with `licences` only (the tournament's managers)."""
    lang = display.language_of(language)
    cards = score_cards_from_snapshot(
        tournament,
        None,
        snapshot=snapshot,
        current=current,
        can_manage=can_manage,
        viewer_player_id=viewer_player_id,
    )
    matchpoints = (snapshot.method if snapshot else tournament.method) == "matchpoints"
    rows: list[list[str]] = [
        [
            _("Last name"),
            _("First name"),
            _("Licence"),
            _("Round"),
            _("Donne"),
            _("Table"),
            _("Position"),
            _("Status"),
            _("Contract"),
            _("Taker"),
            _("Score"),
            _("Match points %") if matchpoints else _("Differentials"),
            _("Average") if matchpoints else _("Running total"),
        ]
    ]
    for card in cards.values():
        player = card.player
        names = [
            text_cell(player.last_name),
            text_cell(player.first_name),
            text_cell(player.licence),
        ]
        for line in card.lines:
            played = (
                (line.status == "played" or line.waiting)
                and not line.hidden
                and not line.all_passed
                and bool(line.contract)
            )
            value = line.percentage if matchpoints else line.differential
            rows.append(
                [
                    *names,
                    str(line.round_number),
                    str(line.donne_number),
                    "" if line.table_number is None else str(line.table_number),
                    display.position_letter(line.position, lang) if line.position else "",
                    _line_status(line),
                    line.contract_label if played else "",
                    display.position_letter(line.taker, lang) if played and line.taker else "",
                    display.decimal_text(line.score, lang, minus="-"),
                    display.decimal_text(value, lang, minus="-"),
                    display.decimal_text(line.running_total, lang, minus="-"),
                ]
            )
    return rows if licences else _blank_column(rows, 2)


def score_cards_filename(tournament: Tournament) -> str:
    """ "donnes-tournoi-du-samedi-2026-12-05.csv" (in the active language)."""
    name = slugify(tournament.name) or str(tournament.pk)
    return f"{slugify(_('results by donne'))}-{name}-{tournament.date:%Y-%m-%d}.csv"


def score_cards_csv(
    tournament: Tournament,
    language: str,
    *,
    can_manage: bool,
    viewer_player_id: int | None,
    licences: bool = False,
) -> RankingCsv:
    """Every player's results donne by donne, from the stored snapshot, as CSV in
    `language`; what the reader may see of other players' lines is what their score cards
    show him. A fixed number of queries whatever the size of the field."""
    lang = display.language_of(language)
    with translation.override(lang):
        snapshot, current = ranking_snapshot(tournament)
        rows = score_card_rows(
            tournament,
            snapshot,
            current,
            lang,
            can_manage=can_manage,
            viewer_player_id=viewer_player_id,
            licences=licences,
        )
        filename = score_cards_filename(tournament)
    return RankingCsv(
        content=csv_text(rows, lang).encode(),
        filename=filename,
        is_current=current,
        version=snapshot.results_version if snapshot else None,
    )
