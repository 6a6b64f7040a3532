"""The club season ranking as a stored subject of the derived-ranking mechanism
(`scoring.rankings.season`): the same lines as the sum at read time, stale when a covered
tournament's results change (and only then), computed by the sweep, read in a fixed number of
queries."""

from __future__ import annotations

import datetime

import pytest
from django.db.models import F

from scoring.rankings.catch_up import club_season_caught_up
from scoring.rankings.derived import sweep_subjects
from scoring.rankings.models import ClubSeason, RankingSnapshot
from scoring.rankings.rows import rows_decode
from scoring.rankings.season import CLUB_SEASON, stored_season
from scoring.rankings.selectors import Season, SeasonLine
from scoring.rankings.services import ranking_recompute
from tests.scoring.rankings.builders import build_tournament, fill_results
from tournaments.models import Club, Player, Registration, Seat, Tournament
from tournaments.search import name_order
from tournaments.signals import send_results_changed

pytestmark = pytest.mark.django_db

START, END = datetime.date(2026, 9, 1), datetime.date(2027, 8, 31)


def read_time_sum(*, club, start, end, method):
    """The season as the page summed it at read time before it was stored (the reference the
    stored subject must equal): each published tournament's current snapshot rows added up,
    ranked by total, ties sharing a rank, in the players' name order."""
    tournaments = list(
        Tournament.objects.filter(
            club=club, status="published", date__gte=start, date__lte=end, method=method
        ).order_by("date", "name")
    )
    snapshots = {
        s.tournament_id: s
        for s in RankingSnapshot.objects.filter(
            tournament_id__in=[t.pk for t in tournaments],
            method=F("tournament__method"),
            matchpoint_penalty_rate=F("tournament__matchpoint_penalty_rate"),
            results_version__gte=F("tournament__results_version"),
        ).order_by("tournament_id", "results_version")
    }
    updating = [t for t in tournaments if t.pk not in snapshots]
    totals: dict[int, SeasonLine] = {}
    for snapshot in snapshots.values():
        for pid, row in rows_decode(snapshot.data.get("rows") or {}).items():
            line = totals.setdefault(pid, SeasonLine(player=None))
            line.total += row.total
            line.tournaments += 1
            line.donnes += row.donnes_played
            line.compared += row.donnes_compared
            diff = row.differential_total
            line.compared_sum += diff * row.donnes_compared if method == "matchpoints" else diff
    players = Player.objects.select_related("club").in_bulk(list(totals))
    lines = []
    for pid, line in totals.items():
        if pid in players:
            line.player = players[pid]
            lines.append(line)
    lines.sort(key=lambda x: (-x.total, name_order(x.player)))
    previous = None
    for index, line in enumerate(lines, start=1):
        line.rank = index if line.total != previous else lines[index - 2].rank
        previous = line.total
    return Season(club, start, end, method, tournaments, updating, lines)


def lines(season) -> list[tuple]:
    return [
        (x.player.pk, x.rank, x.total, x.tournaments, x.donnes, x.compared_sum, x.compared)
        for x in season.lines
    ]


def share_players(built, players) -> None:
    """The first players of a built tournament replaced by `players` (before any result)."""
    swap = {mine.pk: theirs.pk for mine, theirs in zip(built.players, players, strict=False)}
    for seats in built.seats.values():  # what the results are written with
        seats.update({position: swap.get(pk, pk) for position, pk in seats.items()})
    for mine, theirs in zip(built.players, players, strict=False):
        Seat.objects.filter(round__tournament=built.tournament, player=mine).update(player=theirs)
        Registration.objects.filter(tournament=built.tournament, player=mine).update(player=theirs)


def club_with_tournaments(
    method: str, *, computed: int = 3, name: str = "Club", seed: int = 0
) -> tuple:
    """A club with three published tournaments in the season (the first `computed` with a
    current snapshot), a running one, and a published one before the season."""
    club = Club.objects.create(name=name, federation_number=f"{Club.objects.count() + 1:04d}")
    built = []
    for index, (day, status) in enumerate(
        ((3, "published"), (10, "published"), (20, "published"), (25, "running"))
    ):
        b = build_tournament(
            players=8 if index != 1 else 12,
            club=club,
            status=status,
            method=method,
            date=datetime.date(2026, 10, day),
            seed=day + seed,
        )
        if built:  # the first tournament's players play the others too: their lines add up
            share_players(b, built[0].players)
        fill_results(b, seed=day)
        if index < computed:
            ranking_recompute(tournament_id=b.tournament.pk)
        built.append(b)
    outside = build_tournament(
        club=club, status="published", method=method, date=datetime.date(2025, 1, 5), seed=99 + seed
    )
    fill_results(outside)
    ranking_recompute(tournament_id=outside.tournament.pk)
    return club, built, outside


@pytest.mark.parametrize("method", ["average", "matchpoints"])
def test_the_stored_season_is_the_sum_read_at_read_time(method):
    club, _built, _outside = club_with_tournaments(method, computed=2)
    stored = club_season_caught_up(club=club, start=START, end=END, method=method)
    # the read helped the third tournament catch up, then computed and stored the season
    direct = read_time_sum(club=club, start=START, end=END, method=method)
    assert direct.updating == stored.updating == []
    assert stored.tournaments == direct.tournaments
    assert len(stored.lines) == 12  # the first tournament's 8 played all three
    assert sorted(x.tournaments for x in stored.lines) == [1] * 4 + [3] * 8
    assert lines(stored) == lines(direct)
    assert ClubSeason.objects.get(club=club, method=method).computations == 1
    assert lines(club_season_caught_up(club=club, start=START, end=END, method=method)) == lines(
        direct
    )


def test_a_current_season_is_read_in_four_queries(django_assert_max_num_queries):
    club, _built, _outside = club_with_tournaments("average")
    first = club_season_caught_up(club=club, start=START, end=END, method="average")
    with django_assert_max_num_queries(4):
        again = club_season_caught_up(club=club, start=START, end=END, method="average")
    assert lines(again) == lines(first) and again.lines


def test_a_change_marks_stale_the_seasons_covering_the_tournament_only(settings):
    settings.CLUB_SEASON_INLINE = False  # scheduling only marks stale: the sweep computes
    club, built, outside = club_with_tournaments("average")
    other, _b, _o = club_with_tournaments("average", name="Autre club", seed=1000)
    covering = stored_season(club_id=club.pk, start=START, end=END, method="average")
    other_method = stored_season(club_id=club.pk, start=START, end=END, method="matchpoints")
    earlier = stored_season(
        club_id=club.pk, start=START, end=END.replace(year=2026), method="average"
    )
    before = stored_season(
        club_id=club.pk, start=datetime.date(2026, 10, 11), end=END, method="average"
    )
    other_club = stored_season(club_id=other.pk, start=START, end=END, method="average")
    # 10 October: a result, a penalty, a status; its ranking task then schedules the seasons
    send_results_changed(built[1].tournament.pk)
    stale = set(ClubSeason.objects.filter(stale_since__isnull=False).values_list("pk", flat=True))
    assert stale == {covering.pk, other_method.pk}  # method aside: it may have left a season
    assert {earlier.pk, before.pk, other_club.pk}.isdisjoint(stale)
    send_results_changed(outside.tournament.pk)  # before the season: nothing more
    assert ClubSeason.objects.filter(stale_since__isnull=False).count() == 2


def test_a_real_write_marks_the_season_stale_and_the_sweep_computes_it(
    settings, django_capture_on_commit_callbacks
):
    settings.CLUB_SEASON_INLINE = False
    club, _built, _outside = club_with_tournaments("average")
    shown = club_season_caught_up(club=club, start=START, end=END, method="average")
    late = build_tournament(club=club, status="published", date=datetime.date(2026, 11, 2), seed=7)
    with django_capture_on_commit_callbacks(execute=True):
        fill_results(late, seed=7)  # sends results_changed on commit
    season = ClubSeason.objects.get(club=club, method="average")
    assert season.stale_since is not None and season.computations == 1
    ranking_recompute(tournament_id=late.tournament.pk)
    settings.CLUB_SEASON_SWEEP_AFTER = 0
    done = sweep_subjects(where="sweep")
    assert done[CLUB_SEASON.task_name] == [season.pk]
    season.refresh_from_db()
    assert season.stale_since is None and season.computations == 2
    assert str(late.tournament.pk) in season.counted
    after = club_season_caught_up(club=club, start=START, end=END, method="average")
    assert lines(after) == lines(read_time_sum(club=club, start=START, end=END, method="average"))
    assert sum(x.tournaments for x in after.lines) == sum(x.tournaments for x in shown.lines) + 8
    assert ClubSeason.objects.get(pk=season.pk).computations == 2  # the read found it current


def test_a_read_never_shows_a_season_missing_a_saved_result(settings):
    settings.CLUB_SEASON_INLINE = False  # nothing computes the season but the read
    club, _built, _outside = club_with_tournaments("average")
    before = club_season_caught_up(club=club, start=START, end=END, method="average")
    late = build_tournament(club=club, status="published", date=datetime.date(2026, 11, 2), seed=5)
    share_players(late, [line.player for line in before.lines][:4])
    fill_results(late, seed=5)
    season = ClubSeason.objects.get(club=club, method="average")
    assert str(late.tournament.pk) not in season.counted  # stored before the new tournament
    after = club_season_caught_up(club=club, start=START, end=END, method="average")
    assert after.updating == [] and len(after.tournaments) == 4
    assert lines(after) == lines(read_time_sum(club=club, start=START, end=END, method="average"))
    assert lines(after) != lines(before)


def test_past_the_seasons_a_club_stores_a_season_is_computed_not_stored(monkeypatch):
    """The dates come from the page's query string: a stranger varying them stores no more
    than STORED_SEASONS_PER_CLUB seasons of a club; the next is computed for its read only."""
    from scoring.rankings import season as seasons

    monkeypatch.setattr(seasons, "STORED_SEASONS_PER_CLUB", 2)
    club, _built, _outside = club_with_tournaments("average")
    for day in (1, 2):
        club_season_caught_up(
            club=club, start=START - datetime.timedelta(days=day), end=END, method="average"
        )
    assert ClubSeason.objects.filter(club=club).count() == 2
    read = club_season_caught_up(club=club, start=START, end=END, method="average")
    assert ClubSeason.objects.filter(club=club).count() == 2
    assert lines(read) == lines(read_time_sum(club=club, start=START, end=END, method="average"))
    assert read.lines
