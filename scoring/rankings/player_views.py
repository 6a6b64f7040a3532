"""The player's own pages (issue 35): "Mon tarot" (his events, newest first, with a chart),
and his report of one event.

Who reads what:
- "Mon tarot": the player himself, signed in (`/moi/`), or whoever holds his personal link
  (`/moi/<token>/`, a player without an account; an unknown token answers 404, a revoked one
  410, each with a sentence); his club's organisers (`/players/<id>/tarot/`).
- An event report: the player himself (signed in, or through his link) and the event's
  arbiters and organisers; nobody else (403). Only once the event's donnes are complete and
  no embargo holds it (`player_report.report_state`).
"""

from __future__ import annotations

import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language_info, pgettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from scoring.rankings.history_rows import history_rows
from scoring.rankings.player_history import HistoryLine, history_chart_points, history_lines
from scoring.rankings.player_report import (
    OPEN,
    best_third_text,
    event_report,
    report_state,
)
from scoring.rankings.player_sections import player_sections
from scoring.rankings.rating import rating_summary, with_rating
from scoring.rankings.svg import running_total_chart, spread_chart
from scoring.rules.display import HandView
from scoring.templatetags.rankings import number, signed
from tournaments.models import Player, Tournament
from tournaments.permissions import can_manage_tournament, is_club_organiser
from tournaments.services.player_links import player_link_lookup


def _percent(value: float) -> str:
    return f"{number(value)} %"


def history_chart(lines: list[HistoryLine], player: Player) -> tuple[Any, list[Any]]:
    """The chart of his results over time (the share of the field he finished ahead of, per
    event, oldest first) and its values for the table under it; (None, []) without a ranked
    event."""
    points = [
        (date_format(datetime.date.fromisoformat(day), "SHORT_DATE_FORMAT"), value)
        for day, value in history_chart_points(lines)
    ]
    if not points:
        return None, []
    title = _("Share of the field %(player)s finished ahead of, event by event") % {
        "player": player.full_name
    }
    description = _("From %(first)s on %(first_day)s to %(last)s on %(last_day)s.") % {
        "first": _percent(float(points[0][1])),
        "first_day": points[0][0],
        "last": _percent(float(points[-1][1])),
        "last_day": points[-1][0],
    }
    chart = running_total_chart(points, title=title, description=description, format_value=_percent)
    return chart, [line for line in reversed(lines) if line.field_share is not None]


def _history_page(
    request: HttpRequest, player: Player, *, token: str | None, own: bool
) -> HttpResponse:
    lines = history_lines(player)
    chart, chart_lines = history_chart(lines, player)
    rating = rating_summary(player)
    rows, chart_rows = history_rows(
        lines, chart_lines, rating=rating, player_pk=player.pk, token=token
    )
    return render(
        request,
        "scoring/mine.html",
        {
            "player": player,
            "lines": lines,
            "history_rows": rows,
            "chart": chart,
            "chart_rows": chart_rows,
            "token": token,
            "own": own,
            "rating": rating,
            "sections": player_sections(player),
        },
    )


def _gone(request: HttpRequest, revoked: bool) -> HttpResponse:
    """The answer for a personal link that opens nothing: 410 revoked, 404 unknown."""
    return render(
        request, "scoring/link_gone.html", {"revoked": revoked}, status=410 if revoked else 404
    )


@require_GET
def mine(request: HttpRequest) -> HttpResponse:
    """ "Mon tarot" of the signed-in player."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    player = with_rating(Player.objects.select_related("club")).filter(user=request.user).first()
    if player is None:
        return render(request, "scoring/mine_no_player.html", status=404)
    return _history_page(request, player, token=None, own=True)


@require_GET
def mine_link(request: HttpRequest, token: str) -> HttpResponse:
    """ "Mon tarot" through a player's personal link."""
    found = player_link_lookup(token)
    if found.player is None:
        return _gone(request, found.revoked)
    return _history_page(request, found.player, token=token, own=True)


@require_GET
def player_tarot(request: HttpRequest, pk: int) -> HttpResponse:
    """A player's "Mon tarot" as his club's organisers (and he himself) read it."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    player = get_object_or_404(with_rating(Player.objects.select_related("club")), pk=pk)
    own = player.user_id == request.user.pk
    if not own and not is_club_organiser(request.user, player.club):
        raise PermissionDenied
    return _history_page(request, player, token=None, own=own)


def hand_line_html(hand: HandView) -> SafeString:
    """A hand on one line, as `scoring/_hand_line.html` writes it, in Python: a report shows
    a hundred hands and the template's loops cost most of the page."""
    if not (hand.suits or hand.trumps):
        return format_html('<span class="hand-line"><code>{}</code></span>', hand.raw)
    parts = [
        format_html(
            '<span class="hand-suit"><span class="sym {}" aria-hidden="true">{}</span>'
            '<span class="visually-hidden">{}</span> {}</span> · ',
            suit.css,
            suit.symbol,
            _("%(label)s:") % {"label": suit.name},
            " ".join(suit.cards) or "—",
        )
        for suit in hand.suits
    ]
    parts.append(
        format_html(
            '<span class="hand-suit trumps"><span aria-hidden="true">{}</span>'
            '<span class="visually-hidden">{}</span> {}</span>',
            pgettext("trumps, in one letter", "T"),
            _("Trumps:"),
            " ".join(hand.trumps) or "—",
        )
    )
    return mark_safe('<span class="hand-line">' + "".join(parts) + "</span>")  # parts escaped


def report_context(tournament: Tournament, player: Player) -> dict[str, Any] | None:
    """The report and its spread charts for the page (None: he played no donne of it)."""
    report = event_report(tournament, player)
    if report is None:
        return None
    items = []
    for line in report.lines:
        chart = None
        if line.spread_counts and line.compared:
            label = _("Scores at %(position)s: %(values)s") % {
                "position": line.position_label,
                "values": ", ".join(
                    _("%(score)s on %(tables)s") % {"score": signed(s) or "0", "tables": n}
                    for s, n in line.spread_counts
                ),
            }
            chart = spread_chart(
                line.spread_counts,
                mine=line.score,
                label=label,
                format_value=lambda v: signed(v) or "0",
            )
        hands = [
            (hand, hand_line_html(hand))
            for hand in [*line.hands, *([line.chien] if line.chien else [])]
        ]
        items.append((line, chart, hands, best_third_text(line)))
    return {"report": report, "items": items, "tournament": tournament, "player": player}


def report_closed(
    request: HttpRequest, tournament: Tournament, player: Player, *, token: str | None
) -> HttpResponse | None:
    """The 403 page that holds a report (page or PDF) back while the event's donnes are not
    all complete or an embargo holds it; None once it is open."""
    state = report_state(tournament)
    if state == OPEN:
        return None
    return render(
        request,
        "scoring/report_closed.html",
        {"tournament": tournament, "player": player, "state": state, "token": token},
        status=403,
    )


def not_in_tournament(request: HttpRequest, tournament: Tournament, player: Player) -> HttpResponse:
    """The 404 page for a player who played no donne of the event."""
    return render(
        request,
        "scoring/not_in_tournament.html",
        {"tournament": tournament, "player": player},
        status=404,
    )


def report_pdf_urls(tournament: Tournament, player: Player, token: str | None) -> list[Any]:
    """The report's PDF in each language, as (code, the language's own name,
    url): through the personal link
    for its holder, else the signed-in route."""
    if token:
        base = reverse("mine_link_report_pdf", args=[token, tournament.pk])
    else:
        base = reverse("player_event_report_pdf", args=[player.pk, tournament.pk])
    return [
        (code, get_language_info(code)["name_local"], f"{base}?lang={code}")
        for code, _name in settings.LANGUAGES
    ]


def _report_page(
    request: HttpRequest, tournament: Tournament, player: Player, *, token: str | None
) -> HttpResponse:
    closed = report_closed(request, tournament, player, token=token)
    if closed is not None:
        return closed
    context = report_context(tournament, player)
    if context is None:
        return not_in_tournament(request, tournament, player)
    context["token"] = token
    context["pdf_urls"] = report_pdf_urls(tournament, player, token)
    return render(request, "scoring/player_report.html", context)


ReportReader = tuple[Tournament, Player] | HttpResponse


def signed_in_report_reader(request: HttpRequest, pk: int, tournament_pk: int) -> ReportReader:
    """Whose report of which event a signed-in user may read at `/players/<pk>/events/<t>/`:
    his own, or anyone's for the event's arbiters and organisers. An answer instead (the login
    page, 404 unknown ids) or PermissionDenied (403) for another player's report."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    player = get_object_or_404(Player.objects.select_related("club"), pk=pk)
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=tournament_pk)
    own = player.user_id == request.user.pk
    if not own and not can_manage_tournament(request.user, tournament):
        raise PermissionDenied
    return tournament, player


def link_report_reader(request: HttpRequest, token: str, tournament_pk: int) -> ReportReader:
    """The link holder's report of one event (his own only: the token names the player); an
    answer instead for a revoked link (410), an unknown one or an unknown event (404)."""
    found = player_link_lookup(token)
    if found.player is None:
        return _gone(request, found.revoked)
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=tournament_pk)
    return tournament, found.player


@require_GET
def player_event_report(request: HttpRequest, pk: int, tournament_pk: int) -> HttpResponse:
    """A player's report of one event: his own, or anyone's for the event's managers."""
    reader = signed_in_report_reader(request, pk, tournament_pk)
    if isinstance(reader, HttpResponse):
        return reader
    tournament, player = reader
    return _report_page(request, tournament, player, token=None)


@require_GET
def mine_link_report(request: HttpRequest, token: str, tournament_pk: int) -> HttpResponse:
    """The link holder's report of one event."""
    reader = link_report_reader(request, token, tournament_pk)
    if isinstance(reader, HttpResponse):
        return reader
    tournament, player = reader
    return _report_page(request, tournament, player, token=token)
