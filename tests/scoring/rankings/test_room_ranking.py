"""During play the room's ranking counts complete donnes only (RULES §6.1): the public page,
the room's screen, the API and the CSV of anyone but the arbiters do not move while some
tables have still to play a donne; the arbiter's provisional ranking does, and says so; the
score cards agree with the room's ranking; a finished tournament shows every result."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from scoring.rankings.selectors import (
    PROVISIONAL,
    ROOM,
    player_history,
)
from tests.fixtures.tournaments import stage_tournament
from tests.scoring.rankings.helpers import (
    enter,
    ranking_read,
    schedule,
    score_card_read,
    tables_playing,
)
from tournaments.models import Donne, Player, Seat, Tournament

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
FR = {"HTTP_ACCEPT_LANGUAGE": "fr"}


@pytest.fixture
def room_tournament(personas) -> Tournament:
    """24 players over 3 rounds: three tables play each étui set. Two donnes of the first
    set are complete (every table entered them)."""
    t = stage_tournament(players=24, rounds=3, personas=personas)
    assert Donne.objects.filter(tournament=t).count() == 24
    assert len(tables_playing(t, 1)) == 3
    for donne in (2, 3):
        for index, table in enumerate(tables_playing(t, donne)):
            enter(t, table, donne, personas.arbiter, points=41 + 6 * index + donne)
    return t


def fetch(client, url, user=None, **extra):
    client.logout()
    if user is not None:
        client.force_login(user)
    response = client.get(url, **extra)
    assert response.status_code == 200, (url, response.status_code)
    return response


def tbody(html: str) -> str:
    match = re.search(r"<tbody>.*?</tbody>", html, re.S)
    assert match, html[:500]
    return match.group(0)


def api_totals(client, t, user=None, query="") -> tuple[dict[int, str], dict]:
    body = fetch(client, reverse("api_ranking", args=[t.pk]) + query, user, **EN).json()
    return {row["player"]["id"]: row["total_exact"] for row in body["rows"]}, body


def what_the_room_sees(client, t, personas) -> dict[str, object]:
    """The ranking as the public page, a player's page, the room's screen, the API and the
    CSV show it to anyone but the arbiters."""
    ranking = reverse("ranking", args=[t.pk])
    screen = reverse("room_screen_ranking", args=[t.pk]) + "?rows=40"
    return {
        "page": tbody(fetch(client, ranking, **EN).content.decode()),
        "player page": tbody(fetch(client, ranking, personas.player_user, **EN).content.decode()),
        "screen": tbody(fetch(client, screen, **EN).content.decode()),
        "arbiter's screen": tbody(fetch(client, screen, personas.arbiter, **EN).content.decode()),
        "api": api_totals(client, t, personas.player_user)[0],
        "csv": fetch(client, reverse("ranking_csv", args=[t.pk]), **EN).content,
        "api csv": fetch(
            client, reverse("api_ranking_csv", args=[t.pk]) + "?language=en", personas.player_user
        ).content,
    }


def test_the_room_ranking_moves_only_once_every_table_has_played_the_donne(
    client, room_tournament, personas
):
    t = room_tournament
    before = what_the_room_sees(client, t, personas)
    arbiter_before, _body = api_totals(client, t, personas.arbiter)
    assert arbiter_before == before["api"]  # every donne with a result is complete
    assert len(set(before["api"].values())) > 1  # the complete donnes already rank players

    first, second, third = tables_playing(t, 1)
    enter(t, first, 1, personas.arbiter, points=81)
    enter(t, second, 1, personas.arbiter, points=21)
    during = what_the_room_sees(client, t, personas)
    for name, shown in before.items():
        assert during[name] == shown, f"{name} moved before the third table played donne 1"
    arbiter_during, body = api_totals(client, t, personas.arbiter)
    assert body["audience"] == PROVISIONAL and body["is_current"]
    assert arbiter_during != arbiter_before  # the arbiter's provisional ranking moved
    room_body = api_totals(client, t, personas.arbiter, "?view=room")[1]
    assert room_body["audience"] == ROOM
    assert {r["player"]["id"]: r["total_exact"] for r in room_body["rows"]} == before["api"]
    player_body = api_totals(client, t, personas.player_user, "?view=provisional")[1]
    assert player_body["audience"] == ROOM  # a player asking for more gets the room's
    assert (player_body["complete_donnes"], player_body["donnes"]) == (2, 24)

    enter(t, third, 1, personas.arbiter, points=56)
    after = what_the_room_sees(client, t, personas)
    for name, shown in before.items():
        assert after[name] != shown, f"{name} did not move once donne 1 was complete"
    assert api_totals(client, t, personas.arbiter)[0] == after["api"]


def test_the_pages_say_what_the_ranking_counts(client, room_tournament, personas):
    t = room_tournament
    first, second, _third = tables_playing(t, 1)
    enter(t, first, 1, personas.arbiter, points=81)
    enter(t, second, 1, personas.arbiter, points=21)
    ranking = reverse("ranking", args=[t.pk])

    public = fetch(client, ranking, **FR).content.decode()
    assert "Classement après 2 donnes complètes sur 24\u202f:" in public
    assert "provisoire" not in public
    english = fetch(client, ranking, **EN).content.decode()
    assert "Ranking after 2 complete donnes of 24: a donne counts" in english
    screen = fetch(client, reverse("room_screen", args=[t.pk]), personas.arbiter, **FR)
    assert "après 2 donnes complètes sur 24" in screen.content.decode()

    arbiter = fetch(client, ranking, personas.arbiter, **FR).content.decode()
    assert "Classement provisoire\u202f: tous les résultats saisis" in arbiter
    assert "(2 donnes complètes sur 24)" in arbiter
    assert 'data-view="provisional"' in arbiter  # its polls ask for the provisional one
    assert "?view=room" in arbiter and tbody(arbiter) != tbody(public)
    room_view = fetch(client, ranking + "?view=room", personas.arbiter, **FR).content.decode()
    assert tbody(room_view) == tbody(public) and "après 2 donnes complètes" in room_view
    # the public poll (answered before the session is read) gets the room's table, even
    # right after the arbiter's provisional one was rendered and cached
    client.logout()
    poll = client.get(ranking + "?partial=1&since=&cur=", **FR).content.decode()
    assert tbody(poll) == tbody(public) and "provisoire" not in poll

    enter(t, _third, 1, personas.arbiter, points=56)
    assert "après 3 donnes complètes sur 24" in fetch(client, ranking, **FR).content.decode()


def test_a_score_card_agrees_with_the_room_ranking_while_donnes_are_incomplete(
    client, room_tournament, personas, django_user_model
):
    t = room_tournament
    first, second, _third = tables_playing(t, 1)
    enter(t, first, 1, personas.arbiter, points=81)
    enter(t, second, 1, personas.arbiter, points=21)
    round_of_first = next(r for r, table, d in schedule(t) if (table, d) == (first, 1))
    seat = Seat.objects.filter(
        round__tournament=t, round__number=round_of_first, table_round__table__number=first
    ).first()
    player = Player.objects.get(pk=seat.player_id)

    room = {line.player.pk: line for line in ranking_read(t, audience=ROOM).rows}
    provisional = {line.player.pk: line for line in ranking_read(t, audience=PROVISIONAL).rows}
    assert room[player.pk].total != provisional[player.pk].total  # donne 1 matters to him

    card = score_card_read(t, player, can_manage=False, viewer_player_id=player.pk)
    assert card.is_room and card.row.total == room[player.pk].total
    counted = [line.running_total for line in card.lines if line.running_total is not None]
    assert counted[-1] == room[player.pk].differential_total
    donne_1 = next(line for line in card.lines if line.donne_number == 1)
    assert donne_1.waiting and donne_1.differential is None and donne_1.scores  # his own
    arbiters = score_card_read(t, player, can_manage=True)
    assert arbiters.row.total == provisional[player.pk].total
    assert next(line for line in arbiters.lines if line.donne_number == 1).differential

    player.user = django_user_model.objects.create_user("assis", password="x-secret-9")
    player.save(update_fields=["user"])
    url = reverse("score_card", args=[t.pk, player.pk])
    page = fetch(client, url, player.user, **EN).content.decode()
    assert "Counted once every table has played it" in page
    assert "the totals count the complete donnes only" in page
    csv = fetch(client, reverse("score_cards_csv", args=[t.pk]), **EN).content.decode()
    assert "Hidden until every table has played it" in csv
    own = fetch(client, reverse("score_cards_csv", args=[t.pk]), player.user, **EN)
    line = next(
        row.split(",")
        for row in own.content.decode().splitlines()
        if row.startswith(f"{player.last_name},{player.first_name},") and row.split(",")[4] == "1"
    )
    # his own result, without a differential until the donne is complete
    assert line[7:9] == ["Counted once every table has played it", "Garde"], line
    assert line[10] and line[11] == "", line
    # his results page gives his place in the room's ranking too
    (entry,) = player_history(player, [t])
    assert (entry.rank, entry.total) == (room[player.pk].rank, room[player.pk].total)
    assert entry.donnes_played == room[player.pk].donnes_played


def test_once_finished_everyone_sees_every_result(client, room_tournament, personas):
    t = room_tournament
    first, second, _third = tables_playing(t, 1)
    enter(t, first, 1, personas.arbiter, points=81)
    enter(t, second, 1, personas.arbiter, points=21)
    provisional, _body = api_totals(client, t, personas.arbiter)
    Tournament.objects.filter(pk=t.pk).update(status=Tournament.Status.FINISHED)
    t.refresh_from_db()
    totals, body = api_totals(client, t, personas.player_user)
    assert body["audience"] == "final" and totals == provisional
    html = fetch(client, reverse("ranking", args=[t.pk]), **FR).content.decode()
    assert "donnes complètes" not in html and "provisoire" not in html
