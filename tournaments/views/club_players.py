"""The club's players for its organisers (issue 35, point 4): the CSV of the list with
licences and each player's events, and the personal links to "Mon tarot" (issue, revoke).
The list itself is `organiser.club_players`."""

from __future__ import annotations

import csv
import dataclasses
import io

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from scoring.rankings.rating import club_enabled, club_rating_switch, club_ratings

from ..models import Club, Player
from ..permissions import is_club_organiser
from ..search import name_ordering
from ..selectors import PlayerActivity, club_player_activity, season_containing
from ..services.player_links import player_link_issue, player_link_revoke

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _organised_club(request: HttpRequest, pk: int) -> Club:
    club = get_object_or_404(Club, pk=pk)
    if not is_club_organiser(request.user, club):
        raise PermissionDenied
    return club


def _text(value: str) -> str:
    """A text typed by people, never run as a formula by a spreadsheet."""
    return f"'{value}" if value.startswith(FORMULA_STARTS) else value


def with_ratings(club: Club, lines: list[PlayerActivity]) -> tuple[bool, list[PlayerActivity]]:
    """Whether the club shows the rating, and the lines with each player's current rating
    when it does (two queries at most)."""
    if not club_enabled(club.pk):
        return False, lines
    ratings = club_ratings(line.player.pk for line in lines)
    return True, [
        dataclasses.replace(line, rating=ratings[line.player.pk].rating)
        if line.player.pk in ratings
        else line
        for line in lines
    ]


def club_players_csv_text(
    lines: list[PlayerActivity], language: str, *, rating: bool = False
) -> str:
    """The club's players as CSV (French: `;`, English: `,`; byte-order mark, CRLF), with
    their licences, events this season and last event, in `language`; with `rating`, their
    indice (rounded to the unit, empty when not rated yet)."""
    out = io.StringIO()
    out.write("\ufeff")
    writer = csv.writer(out, delimiter=";" if language == "fr" else ",")
    with translation.override(language):
        writer.writerow(
            [
                _("Last name"),
                _("First name"),
                _("Licence"),
                _("Events this season"),
                _("Last event"),
                _("Date of the last event"),
                *([_("Indice")] if rating else []),
            ]
        )
    for line in lines:
        last = line.last_event
        writer.writerow(
            [
                _text(line.player.last_name),
                _text(line.player.first_name),
                line.player.licence,
                line.season_events,
                _text(last.name) if last else "",
                last.date.isoformat() if last else "",
                *([_rating_text(line.rating)] if rating else []),
            ]
        )
    return out.getvalue()


def _rating_text(value: float | None) -> str:
    return "" if value is None else str(round(value))


@login_required
@require_GET
def club_players_csv(request: HttpRequest, club_pk: int) -> HttpResponse:
    """Every player of the club as CSV, with licences (the club's organisers only)."""
    club = _organised_club(request, club_pk)
    start, end = season_containing(timezone.localdate())
    players = list(club.players.order_by(*name_ordering()))
    language = "en" if (translation.get_language() or "").startswith("en") else "fr"
    shown, lines = with_ratings(club, club_player_activity(players, start, end))
    text = club_players_csv_text(lines, language, rating=shown)
    response = HttpResponse(text.encode("utf-8"), content_type="text/csv; charset=utf-8")
    name = slugify(club.name) or "club"
    response["Content-Disposition"] = f'attachment; filename="{name}-players.csv"'
    return response


@login_required
@require_POST
def player_link_issue_view(request: HttpRequest, club_pk: int, pk: int) -> HttpResponse:
    """A new personal link for a player of the club; the previous one stops working."""
    club = _organised_club(request, club_pk)
    player = get_object_or_404(Player.objects.select_related("club"), pk=pk, club=club)
    link = player_link_issue(player=player, user=request.user)
    address = request.build_absolute_uri(reverse("mine_link", args=[link.token]))
    messages.success(
        request,
        _(
            "New personal link for %(player)s: %(address)s — it is printed as a QR code on "
            "their next score cards; the previous link no longer opens anything."
        )
        % {"player": player.full_name, "address": address},
    )
    return redirect("organiser_club_players", club_pk=club.pk)


@login_required
@require_POST
def player_link_revoke_view(request: HttpRequest, club_pk: int, pk: int) -> HttpResponse:
    """Revoke a player's personal link: it answers that it was revoked."""
    club = _organised_club(request, club_pk)
    player = get_object_or_404(Player.objects.select_related("club"), pk=pk, club=club)
    if player_link_revoke(player=player, user=request.user):
        messages.success(
            request,
            _("The personal link of %(player)s is revoked.") % {"player": player.full_name},
        )
    return redirect("organiser_club_players", club_pk=club.pk)


@login_required
@require_POST
def club_rating_view(request: HttpRequest, club_pk: int) -> HttpResponse:
    """The club's switch for the rating ("indice"): `enabled` = 1 or 0 (its organisers)."""
    club = _organised_club(request, club_pk)
    enabled = request.POST.get("enabled") == "1"
    if club_rating_switch(club_id=club.pk, enabled=enabled):
        messages.success(
            request,
            _("The indice is now shown for the club.")
            if enabled
            else _("The indice is now switched off for the club: it is shown nowhere."),
        )
    return redirect("organiser_club_players", club_pk=club.pk)
