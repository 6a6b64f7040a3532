"""The room's screen (a TV or projector: the round's clock, the ranking page by page, the
announcements) and the arbiter's controls of the clock.

The screen never needs a click: htmx asks the server for the clock every second and for the
ranking every few seconds. The clock is computed from the times stored on the round
(tournaments/services/clock.py) and the ranking page from the server's time, so every screen in
the room shows the same thing and a reloaded one starts where the others are.
"""

from __future__ import annotations

import time

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from tarot_club.kit.cached_read import ReadKey, cached, etag, not_modified, tagged

from ..models import Round, Tournament
from ..once import once_per_form
from ..permissions import (
    can_manage_tournament,
    can_see_results,
    can_write_results,
    results_are_public,
)
from ..services.claims_window import claims_window
from ..services.clock import (
    MAX_ADDED_MINUTES,
    clock_add_minutes,
    clock_pause,
    clock_reset,
    clock_start,
    clock_state,
    current_round,
)
from ..services.tournaments import tournament_update
from ..validators import validate_free_text

ROWS_PER_PAGE = 12  # legible at 3 metres on a 1080p screen (room.css fits them to its height)
SECONDS_PER_PAGE = 10
CLOCK_POLL_SECONDS = 1
RANKING_POLL_SECONDS = 2
CLOCK_ACTIONS = ("start", "pause", "add", "reset")


def _screen_tournament(request: HttpRequest, pk: int) -> tuple[Tournament, HttpResponse | None]:
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=pk)
    if can_see_results(request.user, tournament) or can_manage_tournament(request.user, tournament):
        return tournament, None
    if not request.user.is_authenticated:
        return tournament, redirect_to_login(request.get_full_path())
    raise PermissionDenied


def _int_param(request: HttpRequest, name: str, default: int, low: int, high: int) -> int:
    try:
        return max(low, min(high, int(request.GET.get(name, default))))
    except ValueError:
        return default


def _clock_context(tournament: Tournament) -> dict:
    round_ = current_round(tournament)
    state = clock_state(round_=round_, tournament=tournament) if round_ else None
    return {"tournament": tournament, "round": round_, "clock": state}


def _ranking_context(request: HttpRequest, tournament: Tournament) -> dict:
    """The page of the ranking the screen shows now: the room's (complete donnes only during
    play, RULES §6.1) whoever's browser shows it."""
    from scoring.rankings.catch_up import ranking_caught_up

    rows = _int_param(request, "rows", ROWS_PER_PAGE, 3, 40)
    every = _int_param(request, "every", SECONDS_PER_PAGE, 2, 120)
    view = ranking_caught_up(tournament, can_manage=False)
    pages = max(1, -(-len(view.rows) // rows))
    page = int(time.time() // every) % pages  # the same page on every screen of the room
    return {
        "view": view,
        "lines": view.rows[page * rows : (page + 1) * rows],
        "page": page + 1,
        "pages": pages,
        "rows": rows,
        "query": f"rows={rows}&every={every}",
    }


@never_cache
@require_GET
def screen(request: HttpRequest, pk: int) -> HttpResponse:
    """The full-screen page; its parts refresh themselves."""
    tournament, denied = _screen_tournament(request, pk)
    if denied:
        return denied
    context = {
        **_clock_context(tournament),
        **_ranking_context(request, tournament),
        "clock_poll": CLOCK_POLL_SECONDS,
        "ranking_poll": RANKING_POLL_SECONDS,
    }
    return render(request, "tournaments/room/screen.html", context)


@never_cache
@require_GET
def screen_clock(request: HttpRequest, pk: int) -> HttpResponse:
    tournament, denied = _screen_tournament(request, pk)
    if denied:
        return denied
    # The announcement line comes along, swapped out of band.
    context = {**_clock_context(tournament), "oob": True}
    return render(request, "tournaments/room/_clock_poll.html", context)


@require_GET
def screen_ranking(request: HttpRequest, pk: int) -> HttpResponse:
    """The page of the ranking the screen shows now. Every page of a ranking is rendered
    once per version (`catch_up.ranking_read_version`) for all the screens of the room
    (the shared cache, `tarot_club.kit.cached_read`) and a screen that sends the ETag of the
    page it shows gets a 304 until the ranking or the page changes. One query for a
    tournament whose results are public; the access check of `_screen_tournament` besides
    for the others. A stale ranking a read would help catch up is read as before."""
    from scoring.rankings.catch_up import ranking_read_version

    polled, version = ranking_read_version(pk)
    if polled is None:
        raise Http404
    visibility = "public"
    if not results_are_public(polled):
        _tournament, denied = _screen_tournament(request, pk)
        if denied:
            return denied
        visibility = "members"  # who may see it during play: every one the room's ranking
    rows = _int_param(request, "rows", ROWS_PER_PAGE, 3, 40)
    every = _int_param(request, "every", SECONDS_PER_PAGE, 2, 120)
    if version is None:
        tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=pk)
        context = {"tournament": tournament, **_ranking_context(request, tournament)}
        response = render(request, "tournaments/room/_ranking.html", context)
        add_never_cache_headers(response)
        return response
    # The claims window's line is on every page: its stamp is part of the key, so that the
    # screen says "final" (or "claims closed") as soon as it is, not at the next result.
    window = claims_window(polled).stamp
    key = ReadKey(f"room-screen:{pk}", f"{version}:{window}", f"{rows}:{every}", visibility)
    pages = cached(key, lambda: _screen_pages(pk, rows, every))
    page = int(time.time() // every) % len(pages)  # the same page on every screen of the room
    tag = etag(key, str(page))
    return not_modified(request, tag) or tagged(HttpResponse(pages[page]), tag)


def _screen_pages(pk: int, rows: int, every: int) -> list[str]:
    """Every page of the room's ranking as the screen shows it (`_ranking_context`: the
    room's, complete donnes only during play, RULES §6.1)."""
    from scoring.rankings.catch_up import ranking_caught_up

    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=pk)
    view = ranking_caught_up(tournament, can_manage=False)
    count = max(1, -(-len(view.rows) // rows))
    return [
        render_to_string(
            "tournaments/room/_ranking.html",
            {
                "tournament": tournament,
                "view": view,
                "lines": view.rows[page * rows : (page + 1) * rows],
                "page": page + 1,
                "pages": count,
                "rows": rows,
                "query": f"rows={rows}&every={every}",
            },
        )
        for page in range(count)
    ]


# --- the arbiter's controls ------------------------------------------------------------------


def _managed(request: HttpRequest, pk: int) -> Tournament:
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=pk)
    if not can_write_results(request.user, tournament):
        raise PermissionDenied
    return tournament


@login_required
@never_cache
@require_GET
def clock_panel(request: HttpRequest, pk: int) -> HttpResponse:
    """The clock block of the arbiter's dashboard (htmx keeps it up to date)."""
    return _panel(request, _managed(request, pk))


def _announcement_refused(
    request: HttpRequest, tournament: Tournament, exc: ValidationError
) -> HttpResponse:
    """The announcement is not shown: the message says what to remove — in the panel itself
    for htmx (the text typed stays in the field, marked invalid), on the dashboard otherwise."""
    message = " ".join(exc.messages)
    if request.htmx:
        typed = request.POST.get("announcement", "")
        answer = _panel(request, tournament, announcement_error=message, announcement_typed=typed)
        answer.status_code = 422
        return answer
    messages.error(request, message)
    return redirect("arbiter_dashboard", pk=tournament.pk)


def _panel(request: HttpRequest, tournament: Tournament, **extra: str) -> HttpResponse:
    """The clock panel; `extra` carries a refusal to show beside its field (`clock_error`,
    `announcement_error` with `announcement_typed`)."""
    context = {**_clock_context(tournament), "max_minutes": MAX_ADDED_MINUTES, **extra}
    return render(request, "tournaments/room/_clock_panel.html", context)


@login_required
@require_POST
@once_per_form
def clock_action(request: HttpRequest, pk: int, number: int, action: str) -> HttpResponse:
    """Start, pause, add minutes to or reset round `number`'s clock."""
    tournament = _managed(request, pk)
    if action not in CLOCK_ACTIONS:
        raise Http404
    round_ = get_object_or_404(Round, tournament=tournament, number=number)
    if action == "start":
        clock_start(round_=round_)
    elif action == "pause":
        clock_pause(round_=round_)
    elif action == "reset":
        clock_reset(round_=round_)
    else:
        try:
            minutes = int(request.POST.get("minutes", ""))
            clock_add_minutes(round_=round_, minutes=minutes)
        except ValueError:
            error = _("Add between −%(max)d and %(max)d minutes.") % {"max": MAX_ADDED_MINUTES}
            if request.htmx:
                answer = _panel(request, tournament, clock_error=error)
                answer.status_code = 422
                return answer
            messages.error(request, error)
    if request.htmx:
        return _panel(request, tournament)
    return redirect("arbiter_dashboard", pk=tournament.pk)


@login_required
@require_POST
@once_per_form
def announcement_save(request: HttpRequest, pk: int) -> HttpResponse:
    """The line of announcements at the bottom of the room's screen."""
    tournament = _managed(request, pk)
    raw = request.POST.get("announcement", "")
    try:
        validate_free_text(raw)
    except ValidationError as exc:
        return _announcement_refused(request, tournament, exc)
    text = " ".join(raw.split())[:300]
    tournament_update(tournament=tournament, announcement=text)
    if request.htmx:
        tournament.refresh_from_db()
        return _panel(request, tournament, announcement_saved="1")
    messages.success(request, _("The announcement is on the room's screen."))
    return redirect("arbiter_dashboard", pk=tournament.pk)
