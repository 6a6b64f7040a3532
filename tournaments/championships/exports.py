"""A championship's ranking (everyone or one série) and its qualifiers as CSV files for a
spreadsheet, in the dialect of the tournaments' exports (`scoring.rankings.exports`: ";" and a
decimal comma in French, "," and a point in English, a byte-order mark, a typed text that looks
like a formula prefixed with an apostrophe).

Read from the stored championship ranking (`ranking.championship_caught_up`: computed first
when it does not count the current rows of its final events), never computed otherwise. A
ranking with a counted event not final yet is provisional: its file name says so.

Ranking columns: rank ("3=" when shared, "NC" for a player listed apart), names, licence, club,
série, events played and counted, handicap, points, whether qualified, then one column per
event in date order (the points he earned there, empty when he did not play it) and the events
not counted (best_of) by their column's number. Qualifiers: every qualified player once, with
what qualified him (the overall ranking, his série's).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.utils import translation
from django.utils.text import slugify
from django.utils.translation import gettext as _

from scoring.rankings.exports import CONTENT_TYPE, csv_text, text_cell
from scoring.rules import display
from scoring.rules.championship import Line, qualifiers

from .models import Championship, ChampionshipEvent
from .ranking import Standing, championship_caught_up, event_is_final

__all__ = [
    "CONTENT_TYPE",
    "ChampionshipCsv",
    "EventColumn",
    "event_columns",
    "qualified_players",
    "qualifiers_csv",
    "ranking_csv",
]


@dataclass(frozen=True)
class ChampionshipCsv:
    content: bytes
    filename: str
    provisional: bool


@dataclass(frozen=True)
class EventColumn:
    """A counted event as the documents name it: "E3", its date and name, final or not."""

    key: str
    number: int
    date: date
    name: str
    final: bool

    @property
    def label(self) -> str:
        return f"E{self.number}"


def event_columns(entries: Sequence[ChampionshipEvent]) -> list[EventColumn]:
    """The agreed events in date order (then by key, as the rule orders them), numbered."""
    found = []
    for entry in entries:
        if not entry.agreed:
            continue
        event = entry.tournament if entry.tournament_id is not None else entry.simultaneous_event
        found.append((event.date, entry.key, event.name, event_is_final(entry)))
    found.sort(key=lambda item: (item[0], item[1]))
    return [
        EventColumn(key, number, when, name, final)
        for number, (when, key, name, final) in enumerate(found, start=1)
    ]


def qualified_players(championship: Championship, standing: Standing) -> dict[str, list[str]]:
    """{player key: what qualified him} under the championship's qualifier counts: "" for the
    overall ranking, a série's name for that série's; players tied at a cut all qualify."""
    found: dict[str, list[str]] = {}
    if championship.qualify_top:
        for player in qualifiers(standing.scope(None), championship.qualify_top):
            found.setdefault(player, []).append("")
    if championship.qualify_top_per_serie:
        for serie in sorted(standing.series()):
            for player in qualifiers(standing.scope(serie), championship.qualify_top_per_serie):
                found.setdefault(player, []).append(serie)
    return found


def _number(value: Any, language: str) -> str:
    return display.decimal_text(value, language, minus="-")


def _rank(line: Line, lines: Sequence[Line], index: int) -> str:
    if line.rank is None:
        return _("not ranked")
    shared = any(0 <= k < len(lines) and lines[k].rank == line.rank for k in (index - 1, index + 1))
    return f"{line.rank}{'=' if shared else ''}"


def _by_what(scopes: list[str]) -> str:
    return ", ".join(_("overall") if scope == "" else scope for scope in scopes)


def ranking_rows(
    championship: Championship, standing: Standing, serie: str | None, language: str
) -> list[list[str]]:
    """The heading and one row per line of the scope (everyone, or the série)."""
    columns = event_columns(standing.entries)
    series = standing.serie_of()
    qualified = qualified_players(championship, standing)
    percent = " (%)" if championship.kind == Championship.Kind.PERCENTAGE else ""
    rows = [
        [
            _("Rank"),
            _("Last name"),
            _("First name"),
            _("Licence"),
            _("Club"),
            _("Série"),
            _("Events played"),
            _("Events counted"),
            _("Handicap"),
            _("Points") + percent,
            _("Qualified"),
            *(f"{c.label} {c.date:%Y-%m-%d} {c.name}" for c in columns),
            _("Not counted"),
        ]
    ]
    lines = standing.scope(serie)
    for index, line in enumerate(lines):
        first, last, licence, club = (standing.players.get(line.player) or ["", "", "", ""])[:4]
        earned = {score.event: score for score in line.events}
        dropped = [c.label for c in columns if c.key in earned and not earned[c.key].counted]
        rows.append(
            [
                _rank(line, lines, index),
                text_cell(last),
                text_cell(first),
                text_cell(licence or line.player),
                text_cell(club),
                text_cell(series.get(line.player, "")),
                str(len(line.events)),
                str(line.counted),
                _number(line.handicap, language) if line.handicap else "",
                _number(line.points, language),
                _by_what(qualified[line.player]) if line.player in qualified else "",
                *(
                    _number(earned[c.key].points, language) if c.key in earned else ""
                    for c in columns
                ),
                " ".join(dropped),
            ]
        )
    return rows


def qualifier_rows(
    championship: Championship, standing: Standing, language: str
) -> list[list[str]]:
    """The heading and one row per qualified player: overall qualifiers by rank, then each
    série's (those not qualified overall) by série and rank."""
    qualified = qualified_players(championship, standing)
    ranks = {
        scope: {line.player: line for line in standing.scope(scope or None)}
        for scope in ["", *standing.series()]
    }
    rows = [
        [
            _("Final"),
            _("Qualified by"),
            _("Rank"),
            _("Last name"),
            _("First name"),
            _("Licence"),
            _("Club"),
            _("Série"),
            _("Points"),
        ]
    ]
    order = sorted(
        qualified,
        key=lambda key: (
            qualified[key][0] != "",
            qualified[key][0],
            ranks[qualified[key][0]][key].rank or 0,
            key,
        ),
    )
    for key in order:
        scope = qualified[key][0]
        line = ranks[scope][key]
        first, last, licence, club = (standing.players.get(key) or ["", "", "", ""])[:4]
        serie = next((s for s in ranks if s and key in ranks[s]), "")
        rows.append(
            [
                text_cell(championship.final_name),
                _by_what(qualified[key]),
                str(line.rank),
                text_cell(last),
                text_cell(first),
                text_cell(licence or key),
                text_cell(club),
                text_cell(serie),
                _number(line.points, language),
            ]
        )
    return rows


def _filename(championship: Championship, what: str, serie: str | None, provisional: bool) -> str:
    parts = [what, championship.name or str(championship.pk)]
    if serie:
        parts.append(serie)
    if provisional:
        parts.append(_("provisional"))
    return f"{slugify(' '.join(parts)) or championship.pk}.csv"


def ranking_csv(
    championship: Championship, language: str, serie: str | None = None
) -> ChampionshipCsv:
    """The ranking of everyone (or of the série) as CSV in `language` ("fr" or "en")."""
    lang = display.language_of(language)
    with translation.override(lang):
        standing = championship_caught_up(championship)
        provisional = bool(standing.provisional)
        content = csv_text(ranking_rows(championship, standing, serie, lang), lang).encode()
        filename = _filename(championship, _("ranking"), serie, provisional)
    return ChampionshipCsv(content, filename, provisional)


def qualifiers_csv(championship: Championship, language: str) -> ChampionshipCsv:
    """The qualified players with licences and clubs as CSV in `language`."""
    lang = display.language_of(language)
    with translation.override(lang):
        standing = championship_caught_up(championship)
        provisional = bool(standing.provisional)
        content = csv_text(qualifier_rows(championship, standing, lang), lang).encode()
        filename = _filename(championship, _("qualifiers"), None, provisional)
    return ChampionshipCsv(content, filename, provisional)
