"""The hub's reading pages of a simultaneous event (RULES §6.3): the overall ranking page by
page with "find me", a club's players in it, a player's card across the field, the donnes and
each donne's field traveller with its frequency sheet.

Everything is read from the stored overall ranking and the field's stored results
(`reads`): no request ranks anybody. Until the embargo ends only the event's organisers
read these pages (`access.readable_event`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import require_GET

from scoring.rules import display
from tarot_club.kit.cached_read import ReadKey, cached, etag, not_modified, reader_stamp, tagged
from tournaments.models import Contract

from . import reads
from .access import readable_event
from .frequencies import frequency_sheet
from .handview import hand_view
from .models import FieldResult, Invitation, SimultaneousEvent

POSITIONS = ("N", "E", "S", "W")
CONTRACT_LABELS = dict(Contract.choices)
TRAVELLER_PAGE = 100
"""Tables on a page of a donne's field traveller."""
PARTS = "simultaneous/hub/pages/_parts.html"
SHELL = "simultaneous/hub/pages/_shell.html"
SPLIT = "<!-- read:content -->"
RANKING = "simultaneous/hub/pages/ranking.html"
ME_LENGTH = 40
"""The longest ``?me=`` (a licence) a cached page is kept for; longer ones are cut."""


def _page_number(request: HttpRequest, pages: int) -> int:
    """The page asked for, within 1…pages (a number that is not one reads as page 1)."""
    try:
        page = int(request.GET.get("page", "1"))
    except ValueError:
        page = 1
    return min(max(page, 1), pages)


def _common(
    request: HttpRequest, event: SimultaneousEvent, fresh: reads.Freshness | None = None
) -> dict[str, Any]:
    fresh = fresh or reads.freshness(event)
    return {
        "event": event,
        "fresh": fresh,
        "is_matchpoints": event.method == "matchpoints",
        "method_label": reads.method_label(event),
    }


def read_key(event: SimultaneousEvent, fresh: reads.Freshness, view: str) -> ReadKey:
    """What names a field page's answer: the event (its public id, and what of it the pages
    show), the results applied and the stored ranking, the view asked for, and whether the
    embargo holds (then only the organisers got this far: `readable_event`)."""
    shown = f"{event.name}|{event.date}|{event.method}|{event.donne_count}"
    return ReadKey(
        subject=f"hub:{event.public_id}",
        version=f"{event.results_version}:{reads.stored_key(fresh)}:{hash_text(shown)}",
        view=view,
        visibility="public" if event.embargo_over else "embargo",
    )


def hash_text(text: str) -> str:
    """A short stable digest of `text` (a key's part of any length)."""
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def _served(
    request: HttpRequest, key: ReadKey, build: Callable[[], tuple[str, dict[str, Any]]]
) -> HttpResponse:
    """A field page from its cached parts: 304 when the reader's If-None-Match names it,
    else its title and content rendered once per key (`build()` gives the template and its
    context; rendered without the request, so nothing of the reader is in them) inside the
    shell rendered for this reader (his account, his CSRF token)."""
    tag = etag(key, reader_stamp(request))
    unchanged = not_modified(request, tag)
    if unchanged is not None:
        return unchanged

    def parts() -> tuple[str, str]:
        template, context = build()
        title, _sep, content = render_to_string(template, {**context, "shell": PARTS}).partition(
            SPLIT
        )
        return title.strip(), content

    title, content = cached(key, parts)
    # both rendered by the template language, every value escaped there
    context = {"read_title": mark_safe(title), "read_content": mark_safe(content)}
    response = render(request, SHELL, context)
    return tagged(response, etag(key, reader_stamp(request)))  # a new CSRF secret included


@gzip_page
@require_GET
def overall_ranking(request: HttpRequest, public_id: str) -> HttpResponse:
    """The overall ranking, PAGE_SIZE rows a page. ``?q=`` (a name or a licence) jumps to the
    page holding the player found and highlights his row; several found are listed to
    choose from; none found says so (the page asked for is shown). A page (with its ``me``)
    is rendered once per stored ranking and language (`_served`); a search each time."""
    event, denied = readable_event(request, public_id)
    if denied:
        return denied
    fresh = reads.freshness(event)
    pages = reads.page_count(fresh.players)
    query = request.GET.get("q", "").strip()[:80]
    me = request.GET.get("me", "")[:ME_LENGTH]
    page = _page_number(request, pages)
    if not query:
        key = read_key(event, fresh, f"ranking:{page}:{me}")
        return _served(
            request, key, lambda: (RANKING, _ranking_context(request, event, fresh, page, me))
        )
    context = _ranking_context(request, event, fresh, page, me, query=query)
    return render(request, RANKING, context)


def _ranking_context(
    request: HttpRequest,
    event: SimultaneousEvent,
    fresh: reads.Freshness,
    page: int,
    me: str,
    query: str = "",
) -> dict[str, Any]:
    """The ranking page's context: page `page`, or the page of the one player `query`
    finds (several found: listed to choose from)."""
    context = _common(request, event, fresh)
    pages = reads.page_count(fresh.players)
    found: list[reads.Line] = []
    if query:
        found = reads.find_players(event, query)
        if len(found) == 1:
            me, page = found[0].licence, reads.page_of(found[0].place)
    context.update(
        page=page,
        pages=pages,
        pager=_pager(page, pages),
        lines=reads.ranking_page(event, page),
        query=query,
        found=found if len(found) != 1 else [],
        searched=bool(query),
        me=me,
        late=reads.late_corrections(event) if event.embargo_over else [],
    )
    return context


def _pager(page: int, pages: int) -> list[int | None]:
    """The page numbers the pager links to: the first, the last and two around the current
    one, None for a gap (a dozen links whatever the number of pages)."""
    shown = sorted({1, pages, *range(max(1, page - 2), min(pages, page + 2) + 1)})
    out: list[int | None] = []
    for k, number in enumerate(shown):
        if k and number != shown[k - 1] + 1:
            out.append(None)
        out.append(number)
    return out


@require_GET
def club_ranking(request: HttpRequest, public_id: str, invitation_id: str) -> HttpResponse:
    """A club's players in the overall ranking, with their rank within the club; rendered
    once per stored ranking and language (`_served`). An unknown club: 404."""
    event, denied = readable_event(request, public_id)
    if denied:
        return denied
    fresh = reads.freshness(event)

    def build() -> tuple[str, dict[str, Any]]:
        invitation = get_object_or_404(Invitation, event=event, public_id=invitation_id)
        context = _common(request, event, fresh)
        lines = reads.club_lines(event, invitation)
        context.update(
            invitation=invitation,
            lines=[(k, line) for k, line in enumerate(lines, start=1)],
            tables=FieldResult.objects.filter(invitation=invitation).count(),
        )
        return "simultaneous/hub/pages/club.html", context

    return _served(request, read_key(event, fresh, f"club:{invitation_id[:60]}"), build)


@require_GET
def player_card(request: HttpRequest, public_id: str, licence: str) -> HttpResponse:
    """A player's card across the field: each donne he played, where (club, table,
    position), his score and what it is worth against every table of the field that held
    the same cards (differential or match points, out of how many). Rendered once per
    stored ranking and language (`_served`); a licence not in the ranking: 404."""
    event, denied = readable_event(request, public_id)
    if denied:
        return denied
    fresh = reads.freshness(event)

    def build() -> tuple[str, dict[str, Any]]:
        found = reads.player_card(event, licence)
        if found is None:
            raise Http404(_("This player is not in the overall ranking."))
        row, card = found
        context = _common(request, event, fresh)
        tables = {
            (r.table, r.donne): r
            for r in FieldResult.objects.filter(event=event, invitation_id=row.invitation_id)
        }
        context.update(
            line=reads.line_of(event, row),
            club=row.invitation,
            cards=[_card_line(entry, tables) for entry in card],
        )
        return "simultaneous/hub/pages/player.html", context

    return _served(request, read_key(event, fresh, f"player:{licence[:60]}"), build)


def _card_line(entry: list[Any], tables: dict[tuple[int, int], FieldResult]) -> dict[str, Any]:
    """One donne of a card ([donne, position, club, table, score, differential, percentage,
    status, group size], `ranking.club_cards`) with the table's result."""
    donne, position, _club, table, score, diff, pct, status, group = entry
    result = tables.get((table, donne))
    return {
        "donne": donne,
        "position": position,
        "table": table,
        "score": score,
        "differential": Fraction(diff) if diff is not None else None,
        "percentage": Fraction(pct) if pct is not None else None,
        "status": status,
        "group": group,
        "result": result,
        "contract": CONTRACT_LABELS.get(result.contract, result.contract) if result else "",
    }


@require_GET
def donne_list(request: HttpRequest, public_id: str) -> HttpResponse:
    """The event's donnes, each with the number of tables of the field that played it."""
    event, denied = readable_event(request, public_id)
    if denied:
        return denied
    context = _common(request, event)
    counts = reads.donne_table_counts(event)
    context["donnes"] = [(n, counts.get(n, 0)) for n in range(1, event.donne_count + 1)]
    return render(request, "simultaneous/hub/pages/donnes.html", context)


@require_GET
def donne_traveller(request: HttpRequest, public_id: str, number: int) -> HttpResponse:
    """One donne across the field: the hands, the frequency sheet (contracts by position,
    made or failed; each position's scores with their count and worth), and every table's
    result, TRAVELLER_PAGE a page."""
    event, denied = readable_event(request, public_id)
    if denied:
        return denied
    if not 1 <= number <= event.donne_count:
        raise Http404(_("The event has no donne with this number."))
    context = _common(request, event)
    donne = reads.event_donnes(event, [number])[0]
    hands = reads.donne_hands(donne)
    results = FieldResult.objects.filter(event=event, donne=number)
    tables = results.count()
    pages = max(1, -(-tables // TRAVELLER_PAGE))
    page = _page_number(request, pages)
    rows = list(
        results.select_related("invitation").order_by("invitation__club_name", "table")[
            (page - 1) * TRAVELLER_PAGE : page * TRAVELLER_PAGE
        ]
    )
    names = reads.player_names(
        event, (licence for r in rows for licence in (r.holders or {}).values())
    )
    lang = display.language_of(request.LANGUAGE_CODE)
    sheet = frequency_sheet(reads.field_outcomes(event, number), event.method)
    context.update(
        number=number,
        dealer=donne.dealer,
        hands=[hand_view(p, hands[p], lang) for p in ("N", "E", "S", "W")],
        chien=hand_view("", hands["chien"], lang),
        sheet=sheet,
        contracts=[(CONTRACT_LABELS.get(c.contract, c.contract), c) for c in sheet.contracts],
        rows=[
            (r, CONTRACT_LABELS.get(r.contract, r.contract), _traveller_cells(r, names))
            for r in rows
        ],
        page=page,
        pages=pages,
        pager=_pager(page, pages),
        late=reads.late_corrections(event, number) if event.embargo_over else [],
    )
    return render(request, "simultaneous/hub/pages/traveller.html", context)


def _traveller_cells(
    result: FieldResult, names: dict[str, str]
) -> list[tuple[str, int | None, str]]:
    """(position, score or None when annulled, name of the player who held it) N, E, S, W."""
    holders, scores = result.holders or {}, result.scores or {}
    annulled = result.status == FieldResult.Status.ANNULLED
    return [
        (p, None if annulled else scores.get(p), names.get(holders.get(p, ""), ""))
        for p in POSITIONS
    ]
