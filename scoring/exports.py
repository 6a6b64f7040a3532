"""The tournament's ranking as a CSV file for a spreadsheet, the same bytes for the site and
the API.

Why these choices: French Excel splits on ";" and reads "40,5" as a number only with a
decimal comma, and it reads UTF-8 (accents in names) only after a byte-order mark; English
spreadsheets expect "," and a decimal point (the BOM is harmless there and keeps the accents).
Numbers are written by scoring.display, like the screens and the PDFs.

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

from scoring import display
from scoring.selectors import ranking_snapshot, ranking_view, snapshot_cached
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


def ranking_rows(tournament: Tournament, snapshot: Any, current: bool, language: str) -> list:
    """The heading and one row per ranked player (players and clubs in one query)."""
    lang = display.language_of(language)
    view = ranking_view(tournament, snapshot, current)
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
                display.decimal_text(line.differential_total, lang),
                str(line.penalty_points),
                display.decimal_text(line.total, lang),
                str(line.donnes_played),
                str(line.donnes_compared),
            ]
        )
    return rows


def ranking_filename(tournament: Tournament) -> str:
    """ "classement-tournoi-du-samedi-2026-12-05.csv" (in the active language)."""
    name = slugify(tournament.name) or str(tournament.pk)
    return f"{slugify(_('ranking'))}-{name}-{tournament.date:%Y-%m-%d}.csv"


def ranking_csv(tournament: Tournament, language: str) -> RankingCsv:
    """The ranking of the stored snapshot as CSV in `language` ("fr" or "en"): built once per
    snapshot and language (the same bytes for every reader), never computed here."""
    lang = display.language_of(language)
    with translation.override(lang):
        snapshot, current = ranking_snapshot(tournament, refresh=False)

        def build() -> bytes:
            return csv_text(ranking_rows(tournament, snapshot, current, lang), lang).encode()

        content = snapshot_cached(f"csv:{int(current)}", snapshot, build)
        filename = ranking_filename(tournament)
    return RankingCsv(
        content=content,
        filename=filename,
        is_current=current,
        version=snapshot.results_version if snapshot else None,
    )
