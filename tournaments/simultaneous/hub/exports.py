"""The overall ranking of a simultaneous event, and every player's results donne by donne, as
CSV files for a federation's own ranking: licence numbers and clubs on every line.

The conventions are the tournaments' (`scoring.rankings.exports`, whose helpers are used
here): French ";" and decimal comma, English "," and decimal point, a BOM first, and the
formula-injection guard on every text a person typed. Read from the stored overall ranking
and the field's stored results, never computed; built once per (stored version, language)
and kept in the cache. The same visibility as the pages (`access.readable_event`).
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.text import slugify
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from scoring.rankings.exports import CONTENT_TYPE, csv_text, text_cell
from scoring.rules import display
from tournaments.models import Contract

from . import reads
from .access import readable_event
from .models import FieldResult, OverallRankingRow, SimultaneousEvent

CACHE_SECONDS = 300
CONTRACT_LABELS = dict(Contract.choices)


def _number(value: Any, lang: str) -> str:
    """An exact number ("45/2", an int) as the spreadsheet reads it; empty for None."""
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


def results_rows(event: SimultaneousEvent, lang: str) -> Iterator[list[str]]:
    """The heading, then one row per player and donne of his stored card, with the table's
    contract and taker (two queries, whatever the size of the field)."""
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
    rows = (
        OverallRankingRow.objects.filter(event=event)
        .order_by("last_name", "first_name", "licence")
        .values_list("last_name", "first_name", "licence", "club_name", "invitation_id", "card")
    )
    for last, first, licence, club, invitation, card in rows.iterator(chunk_size=500):
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


def export_csv(event: SimultaneousEvent, kind: str, language: str) -> tuple[bytes, str]:
    """The `kind` ("ranking" or "results") CSV of the event in `language` and its file
    name: built once per stored ranking version and language, then served from the cache."""
    lang = display.language_of(language)
    fresh = reads.freshness(event)
    key = f"simultaneous:csv:{event.pk}:{kind}:{reads.stored_key(fresh)}:{lang}"
    with translation.override(lang):
        if kind == "ranking":
            name = _filename(event, _("overall ranking"))
        else:
            name = _filename(event, _("results by donne"))
        content = cache.get(key)
        if content is None:
            rows = ranking_rows(event, lang) if kind == "ranking" else results_rows(event, lang)
            content = csv_text(rows, lang).encode()
            cache.set(key, content, CACHE_SECONDS)
    return content, name


def _download(request: HttpRequest, public_id: str, kind: str) -> HttpResponse:
    event, denied = readable_event(request, public_id)
    if denied:
        return denied
    content, name = export_csv(event, kind, get_language() or "fr")
    response = HttpResponse(content, content_type=CONTENT_TYPE)
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    patch_vary_headers(response, ("Accept-Language", "Cookie"))
    return response


@require_GET
def ranking_csv_download(request: HttpRequest, public_id: str) -> HttpResponse:
    """The overall ranking as CSV in the page's language."""
    return _download(request, public_id, "ranking")


@require_GET
def results_csv_download(request: HttpRequest, public_id: str) -> HttpResponse:
    """Every player's results donne by donne as CSV in the page's language."""
    return _download(request, public_id, "results")
