"""A championship's writes: created with its rule, events added under the rule's checks,
the rule frozen once a counted event is final, séries by hand and from CSV, every change in
the log, nothing saved on a refusal."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import TestCase
from django.utils import translation

from tournaments.championships import services
from tournaments.championships.errors import ChampionshipInvalid
from tournaments.championships.models import (
    Championship,
    ChampionshipEvent,
    ChampionshipLogEntry,
    SeasonSerie,
)
from tournaments.models import Club

from .conftest import END, RULE, START, add, create, published

pytestmark = pytest.mark.django_db


def refusal(call, *args, **kwargs) -> dict[str, list[str]]:
    with pytest.raises(ChampionshipInvalid) as caught:
        call(*args, **kwargs)
    return caught.value.details


def test_a_bad_places_table_is_refused_naming_the_field(season):
    """The messages are the pure rule's (scoring.rules.championship), translated."""
    for places, word in (([25, -1], "-1"), ([20, 25, 16], "25")):
        details = refusal(create, season, places=places)
        assert "places" in details and word in details["places"][0]
        with translation.override("en"):
            assert "place 2" in refusal(create, season, places=places)["places"][0].lower()
    assert not Championship.objects.exists()


def test_best_of_larger_than_the_events_planned_is_refused(season):
    details = refusal(create, season, best_of=5, planned_events=3)
    assert list(details) == ["best_of"]
    assert "5" in details["best_of"][0] and "3" in details["best_of"][0]


def test_a_tournament_counted_twice_or_outside_the_season_is_refused(season):
    championship = create(season)
    tournament = season.tournaments[0].tournament
    add(championship, season.organiser, tournament)
    details = refusal(add, championship, season.organiser, tournament)
    assert list(details) == ["tournament"] and tournament.name in details["tournament"][0]
    before = published(season.club, dt.date(2025, 5, 1), seed=11).tournament
    details = refusal(add, championship, season.organiser, before)
    assert "saison" in details["tournament"][0]
    assert championship.events.count() == 1


def test_under_total_an_event_of_another_method_is_refused(season):
    championship = create(season, kind="total", places=[], places_beyond=0)
    add(championship, season.organiser, season.tournaments[0].tournament)
    other = published(season.club, dt.date(2027, 1, 9), method="matchpoints", seed=12)
    details = refusal(add, championship, season.organiser, other.tournament)
    assert "méthode" in details["tournament"][0] or "Points de match" in details["tournament"][0]
    percentage = create(season, kind="percentage", places=[], places_beyond=0)
    details = refusal(add, percentage, season.organiser, season.tournaments[0].tournament)
    assert list(details) == ["tournament"]


def test_dates_that_leave_out_a_counted_event_are_refused_naming_it(season):
    championship = create(season)
    tournament = season.tournaments[1].tournament
    add(championship, season.organiser, tournament)
    details = refusal(
        services.championship_edit,
        championship,
        user=season.organiser,
        season_start=dt.date(2026, 11, 8),
    )
    assert list(details) == ["season_start"] and tournament.name in details["season_start"][0]
    championship.refresh_from_db()
    assert championship.season_start == START


def test_the_rule_is_frozen_once_a_counted_event_is_final_but_events_still_change(season):
    championship = create(season)
    with TestCase.captureOnCommitCallbacks(execute=True):
        services.championship_edit(championship, user=season.organiser, best_of=2)
    add(championship, season.organiser, season.tournaments[0].tournament)
    details = refusal(
        services.championship_edit, championship, user=season.organiser, places=[30, 20]
    )
    assert list(details) == ["places"]
    assert season.tournaments[0].tournament.name in details["places"][0]
    assert "figée" in details["places"][0]
    championship.refresh_from_db()
    assert championship.places == [25, 20, 16, 13, 11, 10, 9, 8]
    # still: a name, another event, a removal
    services.championship_edit(championship, user=season.organiser, name="Renommé")
    add(championship, season.organiser, season.tournaments[1].tournament)
    entry = championship.events.get(tournament=season.tournaments[1].tournament)
    services.event_remove(entry, user=season.organiser)
    actions = list(championship.log.values_list("action", flat=True))
    assert actions == ["created", "edited", "event_added", "edited", "event_added", "event_removed"]


def test_another_clubs_tournament_waits_for_its_organiser(season, make_user):
    championship = create(season)
    other_organiser = make_user("autre")
    other = Club.objects.create(name="Autre club", federation_number="0691")
    other.organisers.add(other_organiser)
    theirs = published(other, dt.date(2027, 2, 6), seed=21).tournament
    entry = add(championship, season.organiser, theirs)
    assert entry.agreed is False
    with TestCase.captureOnCommitCallbacks(execute=True):
        services.event_agree(entry, user=other_organiser)
    entry.refresh_from_db()
    assert entry.agreed_by == other_organiser
    assert ChampionshipLogEntry.objects.filter(action="event_agreed").count() == 1


def test_series_by_hand_and_by_csv_and_a_bad_line_saves_nothing(season):
    championship = create(season)
    licences = [p.licence for p in season.tournaments[0].players]
    services.series_set(
        championship, [(licences[0], "1re"), (licences[1], "Promotion")], user=season.organiser
    )
    text = f"licence;serie\n{licences[2]};2e\n{licences[0]};3e\n"
    services.series_set(championship, services.series_from_csv(text), user=season.organiser)
    assert dict(SeasonSerie.objects.values_list("licence", "serie")) == {
        licences[0]: "3e",
        licences[1]: "Promotion",
        licences[2]: "2e",
    }
    bad = f"{licences[3]},1re\n12345,2e\n{licences[4]},Élite\n"
    details = refusal(
        services.series_set, championship, services.series_from_csv(bad), user=season.organiser
    )
    assert len(details["series"]) == 2
    assert "Ligne 2" in details["series"][0] and "Ligne 3" in details["series"][1]
    assert SeasonSerie.objects.count() == 3


def test_a_club_he_does_not_organise_is_refused(season, make_user):
    stranger = make_user("etranger")
    details = refusal(
        services.championship_create,
        user=stranger,
        club=season.club,
        name="X",
        season_start=START,
        season_end=END,
        kind="total",
    )
    assert list(details) == ["club"]
    assert not ChampionshipEvent.objects.exists()


def test_a_championship_without_a_club_is_over_simultaneous_events(season, hub):
    """hub_scope is derived from the club: only a simultaneous event's organiser creates a
    championship without one, and a hub_scope that contradicts the club is refused."""
    fields = {"name": "Circuit des simultanés", "season_start": START, "season_end": END, **RULE}
    details = refusal(services.championship_create, user=season.organiser, **fields)
    assert list(details) == ["club"] and "simultané" in details["club"][0]
    details = refusal(
        services.championship_create,
        user=season.organiser,
        club=season.club,
        hub_scope=True,
        **fields,
    )
    assert list(details) == ["hub_scope"]
    with translation.override("en"):
        details = refusal(
            services.championship_create, user=hub.organiser, hub_scope=False, **fields
        )
        assert list(details) == ["hub_scope"] and "club" in details["hub_scope"][0]
    assert not Championship.objects.exists()
    circuit = services.championship_create(user=hub.organiser, **fields)
    assert circuit.hub_scope and circuit.club_id is None
    assert create(season).hub_scope is False
