"""Pages anyone may read: clubs, players, a tournament's public page."""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import pgettext

from ..api.account import account  # noqa: F401 — the account page, with the API token
from ..models import Club, Player, Tournament
from ..permissions import (
    LicenceReader,
    can_manage_tournament,
    can_see_licence,
    can_see_results,
    can_see_seating,
    can_see_tournament,
    is_club_organiser,
)
from ..search import players_matching
from ..services.errors import translate_message
from ..services.preparation import PreparationError, tournament_verify


def club_list(request: HttpRequest) -> HttpResponse:
    return render(request, "tournaments/club_list.html", {"clubs": Club.objects.all()})


def club_detail(request: HttpRequest, pk: int) -> HttpResponse:
    club = get_object_or_404(Club, pk=pk)
    tournaments = club.tournaments.exclude(status=Tournament.Status.DRAFT)
    context = {
        "club": club,
        "tournaments": tournaments,
        "is_organiser": is_club_organiser(request.user, club),
    }
    return render(request, "tournaments/club_detail.html", context)


def player_search(request: HttpRequest) -> HttpResponse:
    """Players by name (and by the start of a licence, with each licence, for a reader who
    reads licences: `LicenceReader`)."""
    query = request.GET.get("q", "").strip()
    reader = LicenceReader.of(request.user)
    rows: list[tuple[Player, str | None]] = []
    if query:
        found = players_matching(
            Player.objects.select_related("club"), query, licences=reader.searches_licences
        )[:50]
        rows = [(player, reader.licence(player)) for player in found]
    template = (
        "tournaments/_player_results.html" if request.htmx else "tournaments/player_search.html"
    )
    context = {"query": query, "rows": rows, "licences": reader.searches_licences}
    return render(request, template, context)


def player_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A player's public page: his club and the events whose results the reader may see; his
    licence only for those `can_see_licence` lets read it."""
    player = get_object_or_404(Player.objects.select_related("club"), pk=pk)
    registrations = [
        r
        for r in player.registrations.select_related("tournament__club").order_by(
            "-tournament__date"
        )
        if can_see_results(request.user, r.tournament)
    ]
    return render(
        request,
        "tournaments/player_detail.html",
        {
            "player": player,
            "registrations": registrations,
            "licence_shown": can_see_licence(request.user, player),
        },
    )


def tournament_detail(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=pk)
    if not can_see_tournament(request.user, tournament):
        raise PermissionDenied
    context = {
        "tournament": tournament,
        "can_manage": can_manage_tournament(request.user, tournament),
        "can_see_results": can_see_results(request.user, tournament),
        "can_see_seating": can_see_seating(request.user, tournament),
    }
    return render(request, "tournaments/tournament_detail.html", context)


def tournament_seats(request: HttpRequest, pk: int) -> HttpResponse:
    """“Où suis-je assis ?”: type part of a name, read the table and position of each round.
    Without an account while the tournament is public during play; htmx asks for the list."""
    from ..services.seat_lookup import MAX_MATCHES, MIN_QUERY_LENGTH, seats_lookup

    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=pk)
    if not can_see_seating(request.user, tournament):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        raise PermissionDenied
    query = request.GET.get("q", "").strip()[:100]
    context = {
        "tournament": tournament,
        "query": query,
        "routes": seats_lookup(tournament=tournament, query=query),
        "too_short": 0 < len(query) < MIN_QUERY_LENGTH,
        "max_matches": MAX_MATCHES,
        "can_see_results": can_see_results(request.user, tournament),
    }
    template = "tournaments/_seats_results.html" if request.htmx else "tournaments/seats.html"
    return render(request, template, context)


def tournament_verify_page(request: HttpRequest, pk: int) -> HttpResponse:
    """Public check of the donnes: the commitment, and once revealed the seed and the result of
    regenerating every donne from it."""
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=pk)
    if not can_see_tournament(request.user, tournament):
        raise PermissionDenied
    report = error = None
    if tournament.seed_revealed_at is not None:
        try:
            report = tournament_verify(tournament=tournament)
        except PreparationError as err:
            error = str(err)
    mismatches = [
        (m.number, pgettext("list separator", "; ").join(translate_message(d) for d in m.details))
        for m in (report.mismatches if report else ())
    ]
    context = {"tournament": tournament, "report": report, "error": error, "mismatches": mismatches}
    return render(request, "tournaments/verify.html", context)
