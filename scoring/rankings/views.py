"""Pages of the rankings: the live ranking, a player's score card, a donne's
traveller, the donnes' index, a club's season ranking and a player's results.

Who sees what is decided by tournaments.permissions: results are public once the tournament
is published, and visible to its players, arbiters and organisers while it runs. A traveller
stays hidden from everyone but the arbiters and organisers until every table scheduled to
play the donne has a result or an annulment.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Iterator
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import Resolver404, resolve, reverse
from django.utils import timezone, translation
from django.utils.cache import patch_vary_headers
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.utils.text import compress_string
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import require_GET

from scoring.rankings.catch_up import club_season_caught_up, ranking_snapshot_caught_up
from scoring.rankings.models import RankingSnapshot
from scoring.rankings.score_card_chart import score_card_chart
from scoring.rankings.selectors import (
    FINAL,
    PROVISIONAL,
    ROOM,
    donne_index,
    player_history,
    ranking_audience,
    ranking_poll_tournament,
    ranking_poll_unchanged,
    ranking_view,
    score_cards_from_snapshot,
    snapshot_cache_get,
    snapshot_cached,
    snapshot_render_claim,
    traveller,
)
from scoring.rules.display import MINUS
from scoring.templatetags.rankings import number, sign_class, signed
from tarot_club.kit.cached_read import ReadKey, etag, not_modified, tagged
from tournaments.models import Club, Donne, Method, Player, Tournament
from tournaments.permissions import (
    can_manage_tournament,
    can_see_licence,
    can_see_results,
    results_are_public,
    with_roles,
)
from tournaments.selectors import donne_is_complete


def _results_tournament(request: HttpRequest, pk: int) -> tuple[Tournament, HttpResponse | None]:
    """The tournament (with the reader's roles, read in the same query), or the answer for a
    reader who may not see its results: the login page for an anonymous visitor, 403 for a
    logged-in one."""
    tournament = get_object_or_404(
        with_roles(Tournament.objects.select_related("club"), request.user), pk=pk
    )
    if can_see_results(request.user, tournament):
        return tournament, None
    if not request.user.is_authenticated:
        return tournament, redirect_to_login(request.get_full_path())
    raise PermissionDenied


def poll_seconds(updating: bool) -> int:
    """How often the ranking page asks for news (faster while it is being updated)."""
    base = int(getattr(settings, "RANKING_POLL_SECONDS", 5))
    return max(1, min(base, 2)) if updating else base


def _wants_fragment(request: HttpRequest) -> bool:
    """The live script (and htmx) ask for the ranking's fragment, not the whole page."""
    return bool(request.htmx) or request.GET.get("partial") == "1"


@gzip_page
@require_GET
def ranking(request: HttpRequest, pk: int) -> HttpResponse:
    """The live ranking. The page's script polls the same URL with the snapshot it shows and
    the fragment's ETag: 304 when nothing changed (decided from one query; 204 to a poll
    without If-None-Match), else the fragment to merge, with its ETag (`fragment_etag`).

    During play the room's ranking counts complete donnes only (RULES §6.1); the arbiters
    and organisers see the provisional one, with every result, or the room's with
    ``?view=room`` (see `ranking_audience`). The table is rendered once per snapshot,
    audience and language and cached: every phone gets the same bytes; what differs per
    reader (his own line, his score card link) is outside the table (the script marks his
    row from `data-me`)."""
    fragment = _wants_fragment(request)
    since, cur = request.GET.get("since", ""), request.GET.get("cur", "")
    if fragment and "since" in request.GET:
        polled = getattr(request, "ranking_polled", None) or ranking_poll_tournament(pk)
        if (
            polled is not None
            and ranking_poll_unchanged(polled, since=since, cur=cur)
            and can_see_results(request.user, polled)
        ):
            manages = can_manage_tournament(request.user, polled)
            seen = ranking_audience(polled, can_manage=manages, asked=request.GET.get("view"))
            return _unchanged(request, pk, since, cur, seen)
    tournament, denied = _results_tournament(request, pk)
    if denied:
        return denied
    can_manage = can_manage_tournament(request.user, tournament)
    audience = ranking_audience(tournament, can_manage=can_manage, asked=request.GET.get("view"))
    snapshot, current = ranking_snapshot_caught_up(tournament)
    shown = since == str(snapshot.pk if snapshot else "") and cur == ("1" if current else "0")
    if fragment and shown:
        return _unchanged(request, pk, since, cur, audience)
    table = snapshot_cached(
        f"table:{audience}",
        snapshot,
        lambda: _ranking_table(tournament, snapshot, current, audience),
    )
    updating = not current
    final = tournament.status == Tournament.Status.PUBLISHED and current
    context = {
        "tournament": tournament,
        "table": table,
        "snapshot_id": snapshot.pk if snapshot else None,
        "version": snapshot.results_version if snapshot else None,
        "is_current": current,
        "updating": updating,
        "computed_at": snapshot.computed_at if snapshot else None,
        "poll": None if final else poll_seconds(updating),
        "me": _my_player_id(request),
        "audience": audience,
        # the page polls for its own view (the same for every reader of the audience)
        "view": "" if audience == FINAL else audience,
        "other_view": {PROVISIONAL: ROOM, ROOM: PROVISIONAL}.get(audience, "")
        if can_manage
        else "",
    }
    if fragment:
        return _fragment_response(request, snapshot, context)
    return render(request, "scoring/ranking.html", context)


_POLLED: dict[int, tuple[float, Tournament | None]] = {}
"""This process's last poll state of each tournament (see RANKING_POLL_CACHE_SECONDS)."""


def _poll_state(pk: int) -> Tournament | None:
    """`ranking_poll_tournament`, reused for RANKING_POLL_CACHE_SECONDS in this process."""
    ttl = float(getattr(settings, "RANKING_POLL_CACHE_SECONDS", 0))
    now = time.monotonic()
    if ttl > 0:
        hit = _POLLED.get(pk)
        if hit is not None and now - hit[0] < ttl:
            return hit[1]
    polled = ranking_poll_tournament(pk)
    if ttl > 0:
        if len(_POLLED) > 1000:
            _POLLED.clear()
        _POLLED[pk] = (now, polled)
    return polled


def fragment_etag(pk: int, since: str, cur: str, audience: str) -> str:
    """The ETag of the live fragment that shows snapshot `since` (current: `cur` "1") of
    tournament `pk` to `audience`, in the active language (`tarot_club.kit.cached_read`):
    the page's script sends it back as If-None-Match."""
    return etag(ReadKey(f"ranking:{pk}", f"{since}:{cur}", "fragment", audience))


def _unchanged(request: HttpRequest, pk: int, since: str, cur: str, audience: str) -> HttpResponse:
    """A poll with nothing new: 304 when it names the fragment it shows (If-None-Match, as
    the page's script asks), 204 otherwise (a poller that sends ``since`` and ``cur`` only)."""
    answer = not_modified(request, fragment_etag(pk, since, cur, audience))
    return answer or HttpResponse(status=204)


def _fragment_kind(current: bool, poll: int | None, gzipped: bool, audience: str) -> str:
    return f"fragment:{audience}:{int(current)}:{poll}:{int(gzipped)}"


def public_poll_answer(request: HttpRequest) -> HttpResponse | None:
    """The answer to a poll of a ranking whose results are public, when it is the same for
    every reader: a 204 when the poll has nothing new, the latest snapshot's fragment when
    it is already rendered and a full read would have nothing to do (no catching up);
    None otherwise (the view answers). It answers the room's ranking (or the final one):
    a poll that asks for another view (the arbiter's provisional ranking) is left to the
    view, which knows the reader. `RankingPollMiddleware` gives it before the session,
    locale, CSRF, authentication and messages middleware run: in a hall of a thousand
    phones, nearly every request. At most one query (the poll state, see
    RANKING_POLL_CACHE_SECONDS), kept on the request for the view; a database error is left
    to the view (the site's 503 page)."""
    try:
        match = resolve(request.path_info)
    except Resolver404:
        return None
    if match.func is not ranking or request.GET.get("view", ROOM) != ROOM:
        return None
    try:
        polled = _poll_state(int(match.kwargs["pk"]))
    except DatabaseError:
        return None
    if polled is None or not results_are_public(polled):
        return None
    request.ranking_polled = polled  # type: ignore[attr-defined]
    since, cur = request.GET.get("since", ""), request.GET.get("cur", "")
    audience = ranking_audience(polled, can_manage=False)
    if ranking_poll_unchanged(polled, since=since, cur=cur):
        with translation.override(translation.get_language_from_request(request)):
            return _unchanged(request, polled.pk, since, cur, audience)
    latest = polled.latest_snapshot_id  # type: ignore[attr-defined]
    if latest is None:
        return None
    current = polled.latest_snapshot_version >= polled.results_version  # type: ignore[attr-defined]
    if not ranking_poll_unchanged(polled, since=str(latest), cur="1" if current else "0"):
        return None  # a read would help the ranking catch up: the view does it
    snapshot = RankingSnapshot(
        pk=latest,
        tournament_id=polled.pk,
        computed_at=polled.latest_snapshot_computed_at,  # type: ignore[attr-defined]
    )
    final = polled.status == Tournament.Status.PUBLISHED and current
    gzipped = "gzip" in request.headers.get("Accept-Encoding", "")
    kind = _fragment_kind(current, None if final else poll_seconds(not current), gzipped, audience)
    with translation.override(translation.get_language_from_request(request)):
        body = snapshot_cache_get(kind, snapshot)
        if body is None:
            # Not rendered yet: one process renders it (the view); while it does, the others
            # answer "nothing new yet" rather than render it too (a 1,000-row table costs
            # a few hundred milliseconds, and a hall of phones asks for it at once).
            return None if snapshot_render_claim(kind, snapshot) else HttpResponse(status=204)
        tag = fragment_etag(polled.pk, str(latest), "1" if current else "0", audience)
    return tagged(_fragment_bytes(body, gzipped), tag)


def _fragment_bytes(body: bytes, gzipped: bool) -> HttpResponse:
    response = HttpResponse(body)
    response["Content-Length"] = str(len(body))  # also when no middleware below sets it
    if gzipped:
        response["Content-Encoding"] = "gzip"
    patch_vary_headers(response, ("Accept-Encoding", "Accept-Language", "Cookie"))
    return response


def _fragment_response(
    request: HttpRequest, snapshot: Any, context: dict[str, Any]
) -> HttpResponse:
    """The live fragment, the same bytes for every reader of a snapshot (the reader's own
    row is the page's business, not the fragment's): rendered and compressed once per
    snapshot, state and language, then served from the cache."""
    context = {**context, "me": None}
    gzipped = "gzip" in request.headers.get("Accept-Encoding", "")
    kind = _fragment_kind(context["is_current"], context["poll"], gzipped, context["audience"])

    def build() -> bytes:
        html = render_to_string("scoring/_ranking_live.html", context).encode()
        return compress_string(html) if gzipped else html

    response = _fragment_bytes(snapshot_cached(kind, snapshot, build), gzipped)
    since = str(snapshot.pk if snapshot else "")
    cur = "1" if context["is_current"] else "0"
    return tagged(
        response, fragment_etag(context["tournament"].pk, since, cur, context["audience"])
    )


def _ranking_table(tournament: Tournament, snapshot: Any, current: bool, audience: str) -> str:
    """The ranking's method line, what it counts, and table for one snapshot: the same for
    every reader of the audience. The rows are built here rather than by the template
    language (a thousand rows in a few milliseconds instead of a quarter of a second: every
    new snapshot is rendered again)."""
    view = ranking_view(tournament, snapshot, current, audience=audience)
    has_penalties = any(line.penalty_points for line in view.rows)
    return render_to_string(
        "scoring/_ranking_table.html",
        {
            "tournament": tournament,
            "view": view,
            "has_penalties": has_penalties,
            # every text in the rows is escaped by _ranking_rows
            "rows": mark_safe("".join(_ranking_rows(tournament, view, has_penalties))),
        },
    )


def _ranking_rows(tournament: Tournament, view: Any, has_penalties: bool) -> Iterator[str]:
    """One compact <tr> per line (cells styled by position in rankings.css); every text
    escaped."""
    placeholder = 2_147_483_647
    card_url = reverse("score_card", args=[tournament.pk, placeholder]).replace(
        str(placeholder), "{}"
    )
    matchpoints = view.is_matchpoints

    def shown(value: Any) -> str:
        return f"{number(value)} %" if matchpoints else signed(value)

    pen = escape(gettext("Pen."))
    for line in view.rows:
        player = line.player
        club = escape(player.club.name)
        total = ""
        if has_penalties:
            total = f'<td class="{sign_class(line.total)}">{shown(line.total)}</td>'
        # On a phone the penalty and donnes columns are hidden (rankings.css): said here.
        played = ngettext(
            "%(count)s donne played", "%(count)s donnes played", line.donnes_played
        ) % {"count": line.donnes_played}
        phone = f"{club} · {escape(played)}"
        if line.penalty_points:
            phone += f" · {pen}\u00a0{MINUS}{line.penalty_points}"
        yield (
            f'<tr data-p="{player.pk}"><td>{line.rank}{"=" if line.tied else ""}</td>'
            f'<td><a href="{card_url.format(player.pk)}">{escape(player.full_name)}</a>'
            f'<span class="sub show-phone">{phone}</span></td><td class="hide-phone">{club}</td>'
            f'<td class="{sign_class(line.differential_total)}">'
            f"{shown(line.differential_total)}</td>"
            f"<td>{f'{MINUS}{line.penalty_points}' if line.penalty_points else ''}</td>{total}"
            f"<td>{line.donnes_played}</td></tr>\n"
        )


def _my_player_id(request: HttpRequest) -> int | None:
    player = getattr(request.user, "player", None) if request.user.is_authenticated else None
    return player.pk if player is not None else None


@require_GET
def player_score_card(request: HttpRequest, pk: int, player_pk: int) -> HttpResponse:
    """A player's score card with the chart of his running total."""
    tournament, denied = _results_tournament(request, pk)
    if denied:
        return denied
    player = get_object_or_404(Player.objects.select_related("club"), pk=player_pk)
    can_manage = can_manage_tournament(request.user, tournament)
    snapshot, current = ranking_snapshot_caught_up(tournament)
    card = score_cards_from_snapshot(
        tournament,
        [player],
        snapshot=snapshot,
        current=current,
        can_manage=can_manage,
        viewer_player_id=_my_player_id(request),
    ).get(player.pk)
    if card is None:
        return render(
            request,
            "scoring/not_in_tournament.html",
            {"tournament": tournament, "player": player},
            status=404,
        )
    chart, chart_text = None, ""
    if card.chart:
        chart, chart_text = score_card_chart(
            card.chart, player=player.full_name, matchpoints=card.is_matchpoints
        )
    return render(
        request,
        "scoring/score_card.html",
        {
            "tournament": tournament,
            "card": card,
            "chart": chart,
            "chart_text": chart_text,
            "can_manage": can_manage,
            "licence_shown": can_manage or can_see_licence(request.user, player),
        },
    )


@require_GET
def donne_list(request: HttpRequest, pk: int) -> HttpResponse:
    """The donnes of the tournament, with a link to each traveller that may be opened."""
    tournament, denied = _results_tournament(request, pk)
    if denied:
        return denied
    can_manage = can_manage_tournament(request.user, tournament)
    return render(
        request,
        "scoring/donne_list.html",
        {
            "tournament": tournament,
            "donnes": donne_index(tournament, can_manage=can_manage),
            "can_manage": can_manage,
        },
    )


@require_GET
def donne_traveller(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """Every table's result on one donne; hidden until every table has played it, except
    from the arbiters and organisers."""
    tournament, denied = _results_tournament(request, pk)
    if denied:
        return denied
    donne = get_object_or_404(Donne, tournament=tournament, number=number)
    can_manage = can_manage_tournament(request.user, tournament)
    if not can_manage and not donne_is_complete(donne):
        return render(
            request,
            "scoring/traveller_hidden.html",
            {"tournament": tournament, "donne": donne},
            status=403,
        )
    return render(
        request,
        "scoring/traveller.html",
        {
            "tournament": tournament,
            "traveller": traveller(tournament, donne),
            "can_manage": can_manage,
        },
    )


def default_season(today: datetime.date) -> tuple[datetime.date, datetime.date]:
    """The club season containing `today`: 1 September to 31 August."""
    first_year = today.year if today.month >= 9 else today.year - 1
    return datetime.date(first_year, 9, 1), datetime.date(first_year + 1, 8, 31)


class SeasonForm(forms.Form):
    start = forms.DateField(label=_("From"), widget=forms.DateInput(attrs={"type": "date"}))
    end = forms.DateField(label=_("To"), widget=forms.DateInput(attrs={"type": "date"}))
    method = forms.ChoiceField(label=_("Comparison method"), choices=Method.choices)

    def clean(self) -> dict:
        data = super().clean()
        start, end = data.get("start"), data.get("end")
        if start and end and end < start:
            raise forms.ValidationError(
                _("The end date must be on or after the start date: swap the two dates.")
            )
        if start and end and (end - start).days > 3 * 366:
            raise forms.ValidationError(
                _("Choose a period of at most three years: the season ranking adds them all up.")
            )
        return data


@require_GET
def club_season_ranking(request: HttpRequest, pk: int) -> HttpResponse:
    """A club's season ranking over a date range (published tournaments only)."""
    club = get_object_or_404(Club, pk=pk)
    start, end = default_season(timezone.localdate())
    initial = {"start": start, "end": end, "method": Method.AVERAGE}
    form = SeasonForm(request.GET if request.GET else None, initial=initial)
    season = None
    if form.is_bound:
        if form.is_valid():
            data = form.cleaned_data
            season = club_season_caught_up(
                club=club, start=data["start"], end=data["end"], method=data["method"]
            )
    else:
        season = club_season_caught_up(club=club, start=start, end=end, method=Method.AVERAGE)
        form = SeasonForm(initial=initial)
    return render(
        request,
        "scoring/club_season.html",
        {"club": club, "form": form, "season": season},
        status=200 if season is not None else 400,
    )


@require_GET
def player_results(request: HttpRequest, pk: int) -> HttpResponse:
    """A player's tournaments and results (those the reader may see)."""
    player = get_object_or_404(Player.objects.select_related("club"), pk=pk)
    tournaments = [
        r.tournament
        for r in player.registrations.select_related("tournament__club").order_by(
            "-tournament__date", "tournament__name"
        )
        if can_see_results(request.user, r.tournament)
    ]
    return render(
        request,
        "scoring/player_results.html",
        {
            "player": player,
            "entries": player_history(player, tournaments),
            "licence_shown": can_see_licence(request.user, player),
        },
    )
