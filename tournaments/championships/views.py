"""The championships' pages: the public ranking (paged by 100, the accent-blind search, each
line expandable to its events), the qualifiers, and the organiser's pages (the rule, the
events, the séries)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from tournaments.models import Club, Tournament
from tournaments.simultaneous.hub.models import SimultaneousEvent

from . import services
from .errors import ChampionshipInvalid
from .forms import ChampionshipForm, EventAddForm, SeriesForm
from .models import Championship, ChampionshipEvent
from .permissions import can_create_championship, can_manage_championship, owns_event
from .ranking import championship_caught_up, season_dates

PER_PAGE = 100


def _form_errors(form: Any, exc: ChampionshipInvalid, aliases: dict[str, str]) -> None:
    for field, msgs in exc.details.items():
        name = aliases.get(field, field)
        for message in msgs:
            form.add_error(name if name in form.fields else None, message)


FORM_ALIASES = {
    "places": "places_text",
    "tie_breaks": "tie_breaks_choice",
    "series": "series_text",
    "handicaps": "handicaps_text",
    "club": None,
}


@require_GET
def championship_list(request: HttpRequest) -> HttpResponse:
    """Every championship, the newest season first."""
    return render(
        request,
        "championships/list.html",
        {
            "championships": Championship.objects.order_by("-season_start", "name")[:200],
            "can_create": can_create_championship(request.user),
        },
    )


@login_required
def championship_create(request: HttpRequest) -> HttpResponse:
    """Create a championship with its rule (a club's or a simultaneous event's organiser)."""
    if not can_create_championship(request.user):
        raise PermissionDenied
    start, end = season_dates(timezone.localdate())
    clubs = Club.objects.all() if request.user.is_superuser else request.user.organised_clubs.all()
    form = ChampionshipForm(
        request.POST or None, initial={"season_start": start, "season_end": end}
    )
    if request.method == "POST" and form.is_valid():
        club = clubs.filter(pk=request.POST.get("club") or 0).first()
        try:
            championship = services.championship_create(
                user=request.user, club=club, **form.values()
            )
        except ChampionshipInvalid as exc:
            _form_errors(form, exc, FORM_ALIASES)
        else:
            return redirect("championship_manage", pk=championship.pk)
    return render(
        request,
        "championships/form.html",
        {"form": form, "clubs": clubs, "championship": None},
        status=400 if form.is_bound and form.errors else 200,
    )


def _managed(request: HttpRequest, pk: int) -> Championship:
    championship = get_object_or_404(Championship, pk=pk)
    if not can_manage_championship(request.user, championship):
        raise PermissionDenied
    return championship


@login_required
def championship_manage(request: HttpRequest, pk: int) -> HttpResponse:
    """The organiser's page: the rule (frozen once a counted event is final), the events
    (add, remove; those waiting for their organiser's agreement), the log."""
    championship = _managed(request, pk)
    entries = list(
        championship.events.select_related("tournament", "simultaneous_event").order_by("pk")
    )
    frozen = services.frozen_by(championship, entries) is not None
    form = ChampionshipForm(instance=championship, frozen=frozen)
    event_form = EventAddForm()
    status = 200
    if request.method == "POST" and "save_rule" in request.POST:
        form = ChampionshipForm(
            request.POST, instance=Championship.objects.get(pk=pk), frozen=frozen
        )
        if form.is_valid():
            try:
                services.championship_edit(championship, user=request.user, **form.values())
            except ChampionshipInvalid as exc:
                _form_errors(form, exc, FORM_ALIASES)
            else:
                messages.success(request, _("The championship is saved."))
                return redirect("championship_manage", pk=pk)
        status = 400
    elif request.method == "POST":
        event_form = EventAddForm(request.POST)
        if _add_event(request, championship, event_form):
            return redirect("championship_manage", pk=pk)
        status = 400
    entries = list(
        championship.events.select_related("tournament", "simultaneous_event").order_by("pk")
    )
    context = {
        "championship": championship,
        "form": form,
        "event_form": event_form,
        "entries": [(e, services.event_name(e), services.event_date(e)) for e in entries],
        "frozen_by": services.frozen_by(championship, entries),
        "log": championship.log.select_related("actor").order_by("-at", "-pk")[:50],
        "choices": _choices(request, championship),
    }
    return render(request, "championships/manage.html", context, status=status)


def _choices(request: HttpRequest, championship: Championship) -> list[Tournament]:
    """Published or coming tournaments of the organiser's clubs in the season."""
    clubs = request.user.organised_clubs.all()
    return list(
        Tournament.objects.filter(
            club__in=clubs,
            date__gte=championship.season_start,
            date__lte=championship.season_end,
        ).order_by("date")[:100]
    )


def _add_event(request: HttpRequest, championship: Championship, form: EventAddForm) -> bool:
    if not form.is_valid():
        return False
    tournament = event = None
    if form.cleaned_data.get("tournament"):
        tournament = Tournament.objects.filter(pk=form.cleaned_data["tournament"]).first()
        if tournament is None:
            form.add_error("tournament", _("There is no such tournament."))
            return False
    elif form.cleaned_data.get("simultaneous_event"):
        event = SimultaneousEvent.objects.filter(
            public_id=form.cleaned_data["simultaneous_event"]
        ).first()
        if event is None:
            form.add_error("simultaneous_event", _("There is no such simultaneous event."))
            return False
    try:
        services.event_add(
            championship, user=request.user, tournament=tournament, simultaneous_event=event
        )
    except ChampionshipInvalid as exc:
        _form_errors(form, exc, {})
        return False
    return True


@require_POST
@login_required
def championship_event_action(
    request: HttpRequest, pk: int, event: int, action: str
) -> HttpResponse:
    """Remove an event (the championship's organisers) or agree that it counts (its own
    organisers)."""
    entry = get_object_or_404(
        ChampionshipEvent.objects.select_related(
            "tournament", "simultaneous_event", "championship"
        ),
        pk=event,
        championship_id=pk,
    )
    if action == "remove":
        _managed(request, pk)
        services.event_remove(entry, user=request.user)
    elif action == "agree":
        if not owns_event(request.user, services.event_of(entry)):
            raise PermissionDenied
        services.event_agree(entry, user=request.user)
    else:
        raise PermissionDenied
    return redirect("championship_manage", pk=pk)


@login_required
def championship_series(request: HttpRequest, pk: int) -> HttpResponse:
    """The players' séries: by hand (licence;série a line) or from a CSV file."""
    championship = _managed(request, pk)
    form = SeriesForm()
    status = 200
    if request.method == "POST":
        form = SeriesForm(request.POST, request.FILES)
        if form.is_valid():
            text = form.cleaned_data["lines"] or ""
            upload = form.cleaned_data.get("file")
            if upload is not None:
                text = upload.read(2_000_000).decode("utf-8-sig", errors="replace")
            try:
                count = services.series_set(
                    championship, services.series_from_csv(text), user=request.user, field="lines"
                )
            except ChampionshipInvalid as exc:
                _form_errors(form, exc, {})
            else:
                messages.success(request, _("%(count)s séries saved.") % {"count": count})
                return redirect("championship_series", pk=pk)
        status = 400
    rows = championship.player_series.order_by("serie", "licence")[:2000]
    return render(
        request,
        "championships/series.html",
        {"championship": championship, "form": form, "rows": rows},
        status=status,
    )


@require_GET
def championship_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """The public ranking: everyone or one série (`?serie=`), the search (`?q=`), paged by
    100, each line expandable to its events; "provisoire" while a counted event is not final."""
    championship = get_object_or_404(Championship, pk=pk)
    standing = championship_caught_up(championship)
    serie = request.GET.get("serie") or None
    if serie not in standing.series():
        serie = None
    query = request.GET.get("q", "")[:100]
    lines = standing.shown(serie, query)
    page = Paginator(lines, PER_PAGE).get_page(request.GET.get("page"))
    entries = sorted(
        (e for e in standing.entries if e.agreed), key=lambda e: (services.event_date(e), e.pk)
    )
    legend = {e.key: (i, services.event_name(e)) for i, e in enumerate(entries, start=1)}
    context = {
        "championship": championship,
        "standing": standing,
        "page": page,
        "classified": [_row(x, legend) for x in page if x.line.classified],
        "unclassified": [_row(x, legend) for x in page if not x.line.classified],
        "events": [
            (i, services.event_name(e), services.event_date(e))
            for i, e in enumerate(entries, start=1)
        ],
        "serie": serie,
        "query": query,
        "provisional": [services.event_name(e) for e in standing.provisional],
        "has_handicaps": bool(championship.handicaps),
        "can_manage": can_manage_championship(request.user, championship),
    }
    return render(request, "championships/detail.html", context)


def _row(shown: Any, legend: dict[str, tuple[int, str]]) -> tuple[Any, list[tuple[Any, ...]]]:
    """A shown line and its events as (number in the page's list, points, counted)."""
    events = [(legend.get(e.event, (0, ""))[0], e.points, e.counted) for e in shown.line.events]
    return shown, events


@require_GET
def championship_qualifiers(request: HttpRequest, pk: int) -> HttpResponse:
    """The qualified players for the named final, overall and per série."""
    championship = get_object_or_404(Championship, pk=pk)
    standing = championship_caught_up(championship)
    qualified = standing.qualified()
    overall = [x for x in standing.shown(None) if x.line.player in qualified.get("", ())]
    per_serie = [
        (serie, [x for x in standing.shown(serie) if x.line.player in keys])
        for serie, keys in qualified.items()
        if serie
    ]
    return render(
        request,
        "championships/qualifiers.html",
        {
            "championship": championship,
            "overall": overall,
            "per_serie": per_serie,
            "provisional": [services.event_name(e) for e in standing.provisional],
        },
    )
