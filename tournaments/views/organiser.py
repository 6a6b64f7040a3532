"""Screens of the club's organisers and the tournament's arbiters before and at the start of
the event: players, tournaments, registrations and check-in, generation, seating plan.

Views stay thin: permissions come from tournaments.permissions, writes from the services.
Anonymous users are sent to the login page; logged-in users without the right get 403.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from scoring.rankings.rating import site_enabled

from ..forms import (
    PlayerChoiceForm,
    PlayerForm,
    PlayerImportForm,
    RegisterLinesForm,
    StatusForm,
    TournamentForm,
)
from ..forms_seating import SeatingSetForm, SeatingSwapForm
from ..models import Club, Player, Registration, Result, Tournament
from ..once import once_per_form
from ..params import id_param
from ..permissions import can_manage_tournament, is_club_organiser
from ..search import name_order, name_ordering, players_matching
from ..selectors import club_player_activity, season_containing
from ..services.calls import calls_summaries
from ..services.players import PlayerImportError, player_create, player_update, players_import_csv
from ..services.registration import (
    RegistrationError,
    RegistrationLinesError,
    RegistrationsRefused,
    players_from_lines,
    registration_add,
    registration_check_in,
    registration_check_in_all,
    registration_check_out,
    registration_remove,
    registrations_add,
)
from ..services.seating_edit import (
    CLOSED_STATUSES,
    SeatingEditRefused,
    seating_check_messages,
    seating_set_change,
    seating_swap,
)
from ..services.tournaments import (
    PREPARATION_STATUSES,
    FinishNeedsConfirmation,
    PublishNeedsConfirmation,
    TournamentError,
    tournament_create,
    tournament_next_statuses,
    tournament_prepare,
    tournament_seating_plan,
    tournament_seating_status,
    tournament_set_status,
    tournament_update,
)
from .club_players import with_ratings

SEARCH_LIMIT = 30
S = Tournament.Status
# The button that moves a tournament from one status to another says what it does.
STATUS_ACTIONS = {
    (S.DRAFT, S.REGISTRATION): gettext_lazy("Open registration"),
    (S.REGISTRATION, S.DRAFT): gettext_lazy("Back to draft"),
    (S.REGISTRATION, S.RUNNING): gettext_lazy("Start the tournament"),
    (S.RUNNING, S.REGISTRATION): gettext_lazy("Back to registration"),
    (S.RUNNING, S.FINISHED): gettext_lazy("Finish the tournament"),
    (S.FINISHED, S.RUNNING): gettext_lazy("Reopen the tournament"),
    (S.FINISHED, S.PUBLISHED): gettext_lazy("Publish the results"),
    (S.PUBLISHED, S.FINISHED): gettext_lazy("Withdraw the publication"),
}


def _managed_tournament(request: HttpRequest, pk: int) -> Tournament:
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=pk)
    if not can_manage_tournament(request.user, tournament):
        raise PermissionDenied
    return tournament


def _organised_club(request: HttpRequest, pk: int) -> Club:
    club = get_object_or_404(Club, pk=pk)
    if not is_club_organiser(request.user, club):
        raise PermissionDenied
    return club


def _organised_clubs(user: Any) -> Any:
    clubs = Club.objects.all()
    return clubs if user.is_superuser else clubs.filter(organisers=user)


def _next(request: HttpRequest, default: str) -> str:
    """Where to go after a POST: back to the page that posted, when it is one of ours."""
    target = request.POST.get("next", "")
    return target if target.startswith("/") and not target.startswith("//") else default


# --- Organiser home and the club's players ------------------------------------------------


@login_required
@require_GET
def organiser_home(request: HttpRequest) -> HttpResponse:
    """The clubs a user organises and the tournaments he manages, drafts included; any
    signed-in user finds here the way to create his club."""
    user = request.user
    clubs = list(_organised_clubs(user).annotate(player_count=Count("players")))
    tournaments = list(
        Tournament.objects.select_related("club")
        .filter(Q(club__in=[c.pk for c in clubs]) | Q(arbiters=user))
        .distinct()
        .order_by("-date", "name")[:100]
    )
    # The calls to the arbiter of each tournament: by kind, and the mean time to him.
    summaries = calls_summaries(tournament_ids=[t.pk for t in tournaments])
    for tournament in tournaments:
        tournament.calls_summary = summaries.get(tournament.pk)
    return render(
        request,
        "tournaments/organiser/home.html",
        {"clubs": clubs, "tournaments": tournaments, "can_create": bool(clubs)},
    )


PLAYERS_PER_PAGE = 100


@login_required
@require_GET
def club_players(request: HttpRequest, club_pk: int) -> HttpResponse:
    club = _organised_club(request, club_pk)
    query = request.GET.get("q", "").strip()
    players = players_matching(club.players.all(), query)
    # A federation club may keep thousands of players: a page at a time.
    page = Paginator(players, PLAYERS_PER_PAGE).get_page(request.GET.get("page"))
    start, end = season_containing(timezone.localdate())
    rating, lines = with_ratings(club, club_player_activity(list(page.object_list), start, end))
    return render(
        request,
        "tournaments/organiser/club_players.html",
        {
            "club": club,
            "players": page.object_list,
            "lines": lines,
            "rating": rating,
            "rating_site": site_enabled(),
            "season_start": start,
            "season_end": end,
            "page": page,
            "query": query,
            "tournaments": club.tournaments.order_by("-date")[:20],
        },
    )


@login_required
@require_http_methods(["GET", "POST"])
@once_per_form
def player_create_view(request: HttpRequest, club_pk: int) -> HttpResponse:
    club = _organised_club(request, club_pk)
    form = PlayerForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            player = player_create(club=club, **form.cleaned_data)
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            messages.success(request, _("%(player)s was added.") % {"player": player.full_name})
            if "add_another" in request.POST:
                return redirect("organiser_player_create", club_pk=club.pk)
            return redirect("organiser_club_players", club_pk=club.pk)
    return render(request, "tournaments/organiser/player_form.html", {"club": club, "form": form})


@login_required
@require_http_methods(["GET", "POST"])
@once_per_form
def player_edit_view(request: HttpRequest, club_pk: int, pk: int) -> HttpResponse:
    club = _organised_club(request, club_pk)
    player = get_object_or_404(Player, pk=pk, club=club)
    form = PlayerForm(request.POST or None, instance=player)
    if request.method == "POST" and form.is_valid():
        try:
            player_update(player=player, **form.cleaned_data)
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            messages.success(request, _("%(player)s was saved.") % {"player": player.full_name})
            return redirect("organiser_club_players", club_pk=club.pk)
    return render(
        request,
        "tournaments/organiser/player_form.html",
        {"club": club, "form": form, "player": player},
    )


@login_required
@require_http_methods(["GET", "POST"])
@once_per_form
def players_import_view(request: HttpRequest, club_pk: int) -> HttpResponse:
    """Import a CSV of players: all lines or none, every bad line listed with its reasons."""
    club = _organised_club(request, club_pk)
    form = PlayerImportForm(request.POST or None, request.FILES or None)
    import_error: PlayerImportError | None = None
    if request.method == "POST" and form.is_valid():
        read_as = _("The file was read as %(encoding)s.") % {"encoding": form.encoding}
        try:
            report = players_import_csv(club=club, text=form.cleaned_data["file"])
        except PlayerImportError as exc:
            import_error = exc
            messages.info(request, read_as)
        else:
            messages.success(
                request,
                _(
                    "Import done. Added: %(created)d; updated: %(updated)d; "
                    "unchanged: %(unchanged)d."
                )
                % {
                    "created": report.created,
                    "updated": report.updated,
                    "unchanged": report.unchanged,
                }
                + " "
                + read_as,
            )
            return redirect("organiser_club_players", club_pk=club.pk)
    return render(
        request,
        "tournaments/organiser/players_import.html",
        {"club": club, "form": form, "import_error": import_error},
        status=422 if import_error is not None else 200,
    )


# --- Tournaments ---------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
@once_per_form
def tournament_create_view(request: HttpRequest) -> HttpResponse:
    if not _organised_clubs(request.user).exists():
        raise PermissionDenied
    initial = {"club": request.GET.get("club")} if request.GET.get("club") else {}
    form = TournamentForm(request.POST or None, user=request.user, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            tournament = tournament_create(**form.cleaned_data, user=request.user)
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            messages.success(
                request,
                _("The tournament was created as a draft: register the players, then open it."),
            )
            return redirect("organiser_prepare", pk=tournament.pk)
    return render(request, "tournaments/organiser/tournament_form.html", {"form": form})


@login_required
@require_http_methods(["GET", "POST"])
@once_per_form
def tournament_edit_view(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _managed_tournament(request, pk)
    form = TournamentForm(request.POST or None, user=request.user, instance=tournament)
    if request.method == "POST" and form.is_valid():
        data = dict(form.cleaned_data)
        data.pop("club", None)
        try:
            tournament_update(tournament=tournament, user=request.user, **data)
        except TournamentError as exc:
            form.add_error(None, exc.message)
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            messages.success(request, _("The tournament was saved."))
            return redirect("organiser_prepare", pk=tournament.pk)
    if request.method == "POST":
        # The form's instance took the refused values; show the saved ones around the form.
        tournament.refresh_from_db()
    return render(
        request,
        "tournaments/organiser/tournament_form.html",
        {"form": form, "tournament": tournament},
    )


@login_required
@require_POST
@once_per_form
def tournament_status_view(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _managed_tournament(request, pk)
    form = StatusForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose one of the statuses offered."))
    else:
        try:
            tournament_set_status(
                tournament=tournament,
                status=form.cleaned_data["status"],
                user=request.user,
                confirm_missing=request.POST.get("confirm_missing") == "1",
            )
        except PublishNeedsConfirmation as exc:
            # Results are missing (or, finishing, a round is open): say which, and ask to
            # confirm (the same form, confirmed).
            return render(
                request,
                "tournaments/organiser/publish_confirm.html",
                {
                    "tournament": tournament,
                    "message": exc.message,
                    "missing": exc.missing,
                    "open_rounds": getattr(exc, "open_rounds", []),
                    "finishing": isinstance(exc, FinishNeedsConfirmation),
                    "status": form.cleaned_data["status"],
                    "next": request.POST.get("next", ""),
                },
            )
        except TournamentError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(
                request,
                _("The tournament is now: %(status)s.")
                % {"status": tournament.get_status_display()},
            )
    return redirect(_next(request, reverse("organiser_prepare", args=[tournament.pk])))


# --- Registrations and check-in ------------------------------------------------------------


def _registrations_context(tournament: Tournament) -> dict[str, Any]:
    registrations = sorted(
        Registration.objects.filter(tournament=tournament).select_related("player__club"),
        key=lambda registration: name_order(registration.player),
    )
    return {
        "tournament": tournament,
        "registrations": registrations,
        "checked_in_count": sum(1 for r in registrations if r.checked_in),
        "seating": tournament_seating_status(tournament=tournament),
        "open": tournament.status in PREPARATION_STATUSES,
    }


def _search_players(tournament: Tournament, query: str) -> list[Player]:
    if not query:
        return []
    players = list(players_matching(Player.objects.select_related("club"), query)[:SEARCH_LIMIT])
    registered = set(
        Registration.objects.filter(
            tournament=tournament, player__in=[p.pk for p in players]
        ).values_list("player_id", flat=True)
    )
    for player in players:
        player.is_registered = player.pk in registered
    return players


TICK_LIMIT = 300


def _bulk_context(tournament: Tournament) -> dict[str, Any]:
    """What the "register several players" forms offer: the club's players not registered
    yet (ticked), its earlier tournaments (their players), and the pasted lines."""
    registered = Registration.objects.filter(tournament=tournament).values("player_id")
    players = tournament.club.players.exclude(pk__in=registered).order_by(*name_ordering())
    earlier = (
        tournament.club.tournaments.exclude(pk=tournament.pk)
        .annotate(registered_count=Count("registrations"))
        .filter(registered_count__gt=0)
        .order_by("-date", "-pk")[:20]
    )
    listed = list(players[: TICK_LIMIT + 1])
    return {
        "club_players": listed[:TICK_LIMIT],
        "club_players_more": len(listed) > TICK_LIMIT,
        "earlier_tournaments": list(earlier),
        "lines_form": RegisterLinesForm(),
    }


@login_required
@require_GET
def registrations_view(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _managed_tournament(request, pk)
    query = request.GET.get("q", "").strip()
    context = _registrations_context(tournament)
    context.update({"query": query, "results": _search_players(tournament, query)})
    if context["open"]:
        context.update(_bulk_context(tournament))
    return render(request, "tournaments/organiser/registrations.html", context)


def _players_to_register(request: HttpRequest, tournament: Tournament) -> list[Player]:
    """The players a "register several" form names (ticked, of an earlier tournament, or
    pasted), or RegistrationError saying what to fix."""
    source = request.POST.get("source", "")
    if source == "lines":
        form = RegisterLinesForm(request.POST)
        if not form.is_valid():
            raise RegistrationError(" ".join(form.errors["lines"]))
        return players_from_lines(text=form.cleaned_data["lines"], tournament=tournament)
    if source == "tournament":
        earlier_id = id_param(request.POST.get("earlier"))
        earlier = (
            tournament.club.tournaments.exclude(pk=tournament.pk).filter(pk=earlier_id).first()
        )
        if earlier is None:
            raise RegistrationError(_("Choose one of the club's earlier tournaments."))
        players = list(
            Player.objects.filter(registrations__tournament=earlier)
            .exclude(registrations__tournament=tournament)
            .order_by(*name_ordering())
        )
        if not players:
            raise RegistrationError(
                _("Every player of %(tournament)s is already registered.")
                % {"tournament": earlier.name}
            )
        return players
    ids = [id_param(value) for value in request.POST.getlist("players")]
    if None in ids:
        raise RegistrationError(_("Tick players of the list."))
    players = list(Player.objects.filter(pk__in=ids).order_by(*name_ordering()))
    if len(players) != len(set(ids)):
        raise RegistrationError(_("Some ticked players no longer exist. Reload the page."))
    return players


@login_required
@require_POST
@once_per_form
def registration_add_many_view(request: HttpRequest, pk: int) -> HttpResponse:
    """Register several players in one go: all of them, or none and every refusal listed."""
    tournament = _managed_tournament(request, pk)
    context: dict[str, Any] = {}
    try:
        players = _players_to_register(request, tournament)
        registrations_add(
            tournament=tournament,
            players=players,
            checked_in="check_in" in request.POST,
            user=request.user,
        )
    except RegistrationLinesError as exc:
        context = {"bulk_error": exc.message, "bulk_problems": exc.problems}
    except RegistrationsRefused as exc:
        context = {"bulk_error": exc.message, "bulk_refused": exc.refused}
    except RegistrationError as exc:
        context = {"bulk_error": exc.message}
    else:
        messages.success(
            request,
            ngettext("%(count)d player registered.", "%(count)d players registered.", len(players))
            % {"count": len(players)},
        )
        return redirect("organiser_registrations", pk=tournament.pk)
    page = _registrations_context(tournament)
    page.update({"query": "", "results": []})
    if page["open"]:
        page.update(_bulk_context(tournament))
        page["lines_form"] = RegisterLinesForm(
            {"lines": request.POST.get("lines", "")}
            if request.POST.get("source") == "lines"
            else None
        )
    page.update(context)
    page["bulk_source"] = request.POST.get("source", "tick")
    page["ticked"] = set(request.POST.getlist("players"))
    return render(request, "tournaments/organiser/registrations.html", page, status=422)


@login_required
@require_GET
def registration_search_view(request: HttpRequest, pk: int) -> HttpResponse:
    """The htmx search box: players of any club matching every word (name or licence)."""
    tournament = _managed_tournament(request, pk)
    query = request.GET.get("q", "").strip()
    return render(
        request,
        "tournaments/organiser/_registration_search.html",
        {
            "tournament": tournament,
            "query": query,
            "results": _search_players(tournament, query),
            "open": tournament.status in PREPARATION_STATUSES,
        },
    )


def _registrations_response(
    request: HttpRequest, tournament: Tournament, error: str = ""
) -> HttpResponse:
    """The registrations panel for htmx; a redirect back to the page otherwise."""
    if request.htmx:
        context = _registrations_context(tournament)
        context["panel_error"] = error
        return render(request, "tournaments/organiser/_registrations.html", context)
    if error:
        messages.error(request, error)
    return redirect("organiser_registrations", pk=tournament.pk)


@login_required
@require_POST
@once_per_form
def registration_add_view(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _managed_tournament(request, pk)
    form = PlayerChoiceForm(request.POST)
    error = ""
    player: Player | None = None
    if not form.is_valid():
        error = _("Choose a player from the search results.")
    else:
        player = form.cleaned_data["player"]
        try:
            registration_add(
                tournament=tournament,
                player=player,
                checked_in="check_in" in request.POST,
                user=request.user,
            )
        except RegistrationError as exc:
            error = exc.message
    if request.htmx:
        # The search results (with the new "registered" badge) and, out of band, the panel.
        query = request.POST.get("q", "").strip()
        context = _registrations_context(tournament)
        context.update(
            {
                "query": query,
                "results": _search_players(tournament, query),
                "row_error": error,
            }
        )
        return render(request, "tournaments/organiser/_registration_added.html", context)
    if not error and player is not None:
        messages.success(request, _("%(player)s is registered.") % {"player": player.full_name})
    return _registrations_response(request, tournament, error)


def _registration_action(
    action: Callable[..., Any], success: Any
) -> Callable[[HttpRequest, int, int], HttpResponse]:
    @login_required
    @require_POST
    @once_per_form
    @wraps(action)
    def view(request: HttpRequest, pk: int, player_pk: int) -> HttpResponse:
        tournament = _managed_tournament(request, pk)
        player = get_object_or_404(Player, pk=player_pk)
        try:
            action(tournament=tournament, player=player, user=request.user)
        except RegistrationError as exc:
            return _registrations_response(request, tournament, exc.message)
        if not request.htmx:
            messages.success(request, success % {"player": player.full_name})
        return _registrations_response(request, tournament)

    return view


registration_remove_view = _registration_action(
    registration_remove, gettext_lazy("%(player)s is no longer registered.")
)
registration_check_in_view = _registration_action(
    registration_check_in, gettext_lazy("%(player)s is checked in.")
)
registration_check_out_view = _registration_action(
    registration_check_out, gettext_lazy("%(player)s is no longer checked in.")
)


@login_required
@require_POST
@once_per_form
def registration_check_in_all_view(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _managed_tournament(request, pk)
    try:
        count = registration_check_in_all(tournament=tournament, user=request.user)
    except RegistrationError as exc:
        return _registrations_response(request, tournament, exc.message)
    if not request.htmx:
        messages.success(
            request,
            ngettext("%(count)d player checked in.", "%(count)d players checked in.", count)
            % {"count": count},
        )
    return _registrations_response(request, tournament)


# --- Preparation: seating, movement and donnes; seed reveal --------------------------------


@login_required
@require_GET
def prepare_view(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _managed_tournament(request, pk)
    tables = list(tournament.tables.values_list("size", flat=True))
    labels = dict(Tournament.Status.choices)
    context = {
        "tournament": tournament,
        "seating": tournament_seating_status(tournament=tournament),
        "tables": len(tables),
        "tables_of_five": sum(1 for size in tables if size == 5),
        "etui_sets": tournament.etui_sets.count(),
        "donnes": tournament.donnes.count(),
        "open": tournament.status in PREPARATION_STATUSES,
        "next_statuses": [
            (code, STATUS_ACTIONS.get((tournament.status, code), labels[code]))
            for code in tournament_next_statuses(tournament=tournament)
        ],
        "can_reveal": tournament.status in (Tournament.Status.FINISHED, Tournament.Status.PUBLISHED)
        and bool(tournament.seed)
        and tournament.seed_revealed_at is None,
    }
    return render(request, "tournaments/organiser/prepare.html", context)


@login_required
@require_POST
@once_per_form
def prepare_generate_view(request: HttpRequest, pk: int) -> HttpResponse:
    from ..services.preparation import PreparationError

    tournament = _managed_tournament(request, pk)
    try:
        tournament_prepare(tournament=tournament, user=request.user)
    except (TournamentError, PreparationError) as exc:
        messages.error(request, getattr(exc, "message", None) or str(exc))
    else:
        messages.success(
            request,
            _(
                "The seating, movement and donnes are generated for the %(count)d checked-in "
                "players. Print the seating plan and the étuis."
            )
            % {"count": tournament.registrations.exclude(checked_in_at=None).count()},
        )
    return redirect("organiser_prepare", pk=tournament.pk)


@login_required
@require_POST
@once_per_form
def prepare_reveal_view(request: HttpRequest, pk: int) -> HttpResponse:
    """After the event, reveal the seed so anyone can check the donnes against the commitment."""
    from ..services.preparation import PreparationError, tournament_reveal_seed

    tournament = _managed_tournament(request, pk)
    if tournament.status not in (Tournament.Status.FINISHED, Tournament.Status.PUBLISHED):
        messages.error(request, _("The seed can only be revealed once the tournament is finished."))
    else:
        try:
            tournament_reveal_seed(tournament=tournament, user=request.user)
        except PreparationError as exc:
            messages.error(request, getattr(exc, "message", None) or str(exc))
        else:
            messages.success(
                request,
                _("The seed is revealed: anyone can now check the donnes against the commitment."),
            )
    return redirect("organiser_prepare", pk=tournament.pk)


@login_required
@require_GET
def seating_plan_view(request: HttpRequest, pk: int) -> HttpResponse:
    """The seating plan per round and each player's route, laid out to print; checked against
    the movement rules. With ?edit=1, a form per round to swap two players or change a table's
    étui set (the arbiter's hand edits)."""
    tournament = _managed_tournament(request, pk)
    plan = tournament_seating_plan(tournament=tournament)
    edit = request.GET.get("edit") == "1" and plan.generated
    context: dict[str, Any] = {
        "tournament": tournament,
        "plan": plan,
        "seating": tournament_seating_status(tournament=tournament),
        "breaches": seating_check_messages(tournament) if plan.generated else [],
        "edit": edit,
    }
    if edit:
        context["locked_rounds"] = set(
            Result.objects.filter(tournament=tournament).values_list(
                "table_round__round__number", flat=True
            )
        )
        context["etui_sets"] = list(tournament.etui_sets.values_list("number", flat=True))
        context["closed"] = tournament.status in CLOSED_STATUSES
    return render(request, "tournaments/organiser/seating_plan.html", context)


def _seating_edit_url(tournament: Tournament, round_number: int | None = None) -> str:
    url = reverse("organiser_seating_plan", args=[tournament.pk]) + "?edit=1"
    return f"{url}#round-{round_number}" if round_number else url


def _seating_refused(request: HttpRequest, exc: SeatingEditRefused) -> None:
    if exc.breaches:
        messages.error(
            request,
            ngettext(
                "The change was refused: it would break %(count)d rule of the movement. "
                "Nothing was changed.",
                "The change was refused: it would break %(count)d rules of the movement. "
                "Nothing was changed.",
                len(exc.breaches),
            )
            % {"count": len(exc.breaches)},
        )
    for message in exc.messages:
        messages.error(request, message)


@login_required
@require_POST
@once_per_form
def seating_swap_view(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _managed_tournament(request, pk)
    form = SeatingSwapForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose two players of the round to swap."))
        return redirect(_seating_edit_url(tournament))
    data = form.cleaned_data
    try:
        seating_swap(
            tournament=tournament,
            round_number=data["round"],
            player_a=data["player_a"],
            player_b=data["player_b"],
            user=request.user,
        )
    except SeatingEditRefused as exc:
        _seating_refused(request, exc)
    else:
        pks = [data["player_a"], data["player_b"]]
        players = {p.pk: p.full_name for p in Player.objects.filter(pk__in=pks)}
        messages.success(
            request,
            _(
                "Round %(number)s: %(a)s and %(b)s have swapped seats. The movement was "
                "checked: no breach."
            )
            % {
                "number": data["round"],
                "a": players[data["player_a"]],
                "b": players[data["player_b"]],
            },
        )
    return redirect(_seating_edit_url(tournament, data["round"]))


@login_required
@require_POST
@once_per_form
def seating_set_view(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _managed_tournament(request, pk)
    form = SeatingSetForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose a table and an étui set."))
        return redirect(_seating_edit_url(tournament))
    data = form.cleaned_data
    try:
        seating_set_change(
            tournament=tournament,
            round_number=data["round"],
            table_number=data["table"],
            set_number=data["etui_set"],
            user=request.user,
        )
    except SeatingEditRefused as exc:
        _seating_refused(request, exc)
    else:
        messages.success(
            request,
            _(
                "Round %(number)s: table %(table)s now plays étui set %(set)s. The movement was "
                "checked: no breach."
            )
            % {"number": data["round"], "table": data["table"], "set": data["etui_set"]},
        )
    return redirect(_seating_edit_url(tournament, data["round"]))
