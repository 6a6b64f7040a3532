"""The overall ranking of a simultaneous event, and every player's results donne by donne, as
CSV files for a federation's own ranking: licence numbers and clubs on every line.

The conventions are the tournaments' (`scoring.rankings.exports`, whose helpers are used
here): French ";" and decimal comma, English "," and decimal point, a BOM first, and the
formula-injection guard on every text a person typed. Read from the stored overall ranking
and the field's stored results, never computed: the ranking built once per (stored version,
language), the results by donne streamed as they are read. The same visibility as the pages (`access.readable_event`).
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from functools import lru_cache
from typing import Any

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.text import slugify
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from scoring.rankings.exports import BOM, CONTENT_TYPE, csv_text, text_cell
from scoring.rules import display
from tournaments.models import Contract
from tournaments.search import player_sort_name

from . import reads, sql
from .access import readable_event
from .models import FieldResult, OverallRankingRow, SimultaneousEvent

CONTRACT_LABELS = dict(Contract.choices)


@lru_cache(maxsize=65536)
def _number(value: Any, lang: str) -> str:
    """An exact number ("45/2", an int) as the spreadsheet reads it; empty for None. Cached:
    a field's 288,000 lines hold a few thousand distinct values."""
    return "" if value is None else display.decimal_text(Fraction(value), lang, minus="-")


def ranking_rows(event: SimultaneousEvent, lang: str) -> Iterator[list[str]]:
    """The heading, then one row per ranked player, best first (one query)."""
    matchpoints = event.method == "matchpoints"
    yield [
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
    rows = OverallRankingRow.objects.filter(event=event).order_by("place")
    ranks: dict[int, int] = {}
    values = list(
        rows.values_list(
            "rank",
            "last_name",
            "first_name",
            "licence",
            "club_name",
            "differential_total",
            "penalty_points",
            "total",
            "donnes_played",
            "donnes_compared",
        )
    )
    for row in values:
        ranks[row[0]] = ranks.get(row[0], 0) + 1
    for rank, last, first, licence, club, diff, pen, total, played, compared in values:
        yield [
            f"{rank}{'=' if ranks[rank] > 1 else ''}",
            text_cell(last),
            text_cell(first),
            text_cell(licence),
            text_cell(club),
            _number(diff, lang),
            str(pen),
            _number(total, lang),
            str(played),
            str(compared),
        ]


def _status_text(status: str, contract: str) -> str:
    if status == "sat_out":
        return _("Sat out")
    if status == "annulled":
        return _("Annulled")
    if not contract:
        return _("All passed")
    return _("Played")


def _rows_by_name(event: SimultaneousEvent) -> Iterator[tuple[Any, ...]]:
    """The stored ranking's players (last name, first name, licence, club, invitation,
    card) in the site's one order of names (`tournaments.search.name_order`), then by
    licence (four queries)."""
    with sql.consistent_read():  # names and cards of one stored ranking
        names = list(
            OverallRankingRow.objects.filter(event=event).values_list(
                "last_name", "first_name", "licence", "club_name", "invitation_id"
            )
        )
        cards = reads.field_cards(event)
    for last, first, licence, club, invitation in sorted(
        names, key=lambda r: (player_sort_name(first_name=r[1], last_name=r[0]), r[2])
    ):
        yield last, first, licence, club, invitation, cards.get(licence, [])


def results_rows(event: SimultaneousEvent, lang: str) -> Iterator[list[str]]:
    """The heading, then one row per player and donne of his card, with the table's
    contract and taker (five queries)."""
    matchpoints = event.method == "matchpoints"
    yield [
        _("Last name"),
        _("First name"),
        _("Licence"),
        _("Club"),
        _("Donne"),
        _("Table"),
        _("Position"),
        _("Status"),
        _("Contract"),
        _("Taker"),
        _("Score"),
        _("Match points %") if matchpoints else _("Differentials"),
        _("Tables compared"),
    ]
    contracts = {
        (invitation, table, donne): (contract, taker)
        for invitation, table, donne, contract, taker in FieldResult.objects.filter(
            event=event
        ).values_list("invitation_id", "table", "donne", "contract", "taker")
    }
    for last, first, licence, club, invitation, card in _rows_by_name(event):
        names = [text_cell(last), text_cell(first), text_cell(licence), text_cell(club)]
        for donne, position, _club, table, score, diff, pct, status, group in card:
            contract, taker = contracts.get((invitation, table, donne), ("", ""))
            played = status == "played" and bool(contract)
            yield [
                *names,
                str(donne),
                "" if table is None else str(table),
                display.position_letter(position, lang) if position else "",
                _status_text(status, contract),
                str(CONTRACT_LABELS.get(contract, contract)) if played else "",
                display.position_letter(taker, lang) if played and taker else "",
                _number(score, lang),
                _number(pct if matchpoints else diff, lang),
                str(group or ""),
            ]


def _filename(event: SimultaneousEvent, what: str) -> str:
    """ "classement-simultane-du-16-janvier-2027-01-16.csv" (in the active language)."""
    return f"{slugify(what)}-{slugify(event.name) or event.public_id}-{event.date:%Y-%m-%d}.csv"


def ranking_csv(event: SimultaneousEvent, language: str) -> tuple[bytes, str]:
    """The overall ranking as CSV in `language` and its file name: built once per stored
    ranking version and language (`reads.built_once`)."""
    lang = display.language_of(language)
    fresh = reads.freshness(event)
    with translation.override(lang):
        name = _filename(event, _("overall ranking"))
        content = reads.built_once(
            f"simultaneous:csv:{event.pk}:{reads.stored_key(fresh)}:{lang}",
            lambda: csv_text(ranking_rows(event, lang), lang).encode(),
        )
    return content, name


def results_csv_chunks(event: SimultaneousEvent, language: str) -> Iterator[bytes]:
    """Every player's results by donne as CSV in `language`, 500 lines at a time: a field of
    12,000 players writes 288,000 lines (tens of megabytes), streamed as they are read
    rather than held in memory or in the cache."""
    lang = display.language_of(language)
    with translation.override(lang):
        batch: list[list[str]] = []
        first = True
        for row in results_rows(event, lang):
            batch.append(row)
            if len(batch) == 500:
                yield _csv_chunk(batch, lang, first)
                batch, first = [], False
        if batch or first:
            yield _csv_chunk(batch, lang, first)


def _csv_chunk(rows: list[list[str]], lang: str, first: bool) -> bytes:
    """Rows in the CSV dialect of `lang` (`csv_text`), the BOM on the first chunk only."""
    text = csv_text(rows, lang)
    return (text if first else text.removeprefix(BOM)).encode()


def _attachment(response: HttpResponse | StreamingHttpResponse, name: str) -> None:
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    patch_vary_headers(response, ("Accept-Language", "Cookie"))


@require_GET
def ranking_csv_download(request: HttpRequest, public_id: str) -> HttpResponse:
    """The overall ranking as CSV in the page's language."""
    event, denied = readable_event(request, public_id)
    if denied:
        return denied
    content, name = ranking_csv(event, get_language() or "fr")
    response = HttpResponse(content, content_type=CONTENT_TYPE)
    _attachment(response, name)
    return response


@require_GET
def results_csv_download(request: HttpRequest, public_id: str) -> HttpResponse:
    """Every player's results donne by donne as CSV in the page's language (streamed)."""
    event, denied = readable_event(request, public_id)
    if denied:
        return denied
    language = get_language() or "fr"
    with translation.override(display.language_of(language)):
        name = _filename(event, _("results by donne"))
    response = StreamingHttpResponse(results_csv_chunks(event, language), content_type=CONTENT_TYPE)
    _attachment(response, name)
    return response
