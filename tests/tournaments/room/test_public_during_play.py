"""Public during play: anyone reads the live ranking and finds his seat; travellers of donnes
not played everywhere and other players' lines of them stay hidden."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.scoring.rankings.helpers import enter, tables_playing
from tournaments.models import Player, Seat, Tournament
from tournaments.permissions import can_see_results, can_see_seating

pytestmark = pytest.mark.django_db


def _helene(tournament: Tournament) -> Player:
    player = Seat.objects.filter(round__tournament=tournament).order_by("pk").first().player
    player.first_name, player.last_name = "Hélène", "Lefèvre"
    player.save()
    return player


def test_an_anonymous_visitor_reads_the_ranking_while_it_runs(client, running_tournament):
    t = running_tournament
    assert client.get(reverse("ranking", args=[t.pk])).status_code == 200
    Tournament.objects.filter(pk=t.pk).update(public_during_play=False)
    assert client.get(reverse("ranking", args=[t.pk])).status_code == 302


def test_travellers_of_unfinished_donnes_stay_hidden_from_the_public(
    client, running_tournament, personas
):
    t = running_tournament
    first, *_ = tables_playing(t, 1)
    enter(t, first, 1, personas.arbiter)
    assert client.get(reverse("traveller", args=[t.pk, 1])).status_code == 403


@pytest.mark.parametrize("status", ["draft", "registration"])
def test_nothing_is_public_before_play(client, personas, status):
    from tests.fixtures.tournaments import stage_tournament

    t = stage_tournament(personas=personas, status=status)
    assert not can_see_results(personas.stranger, t)
    assert not can_see_seating(personas.stranger, t)
    assert client.get(reverse("tournament_seats", args=[t.pk])).status_code == 302


def test_where_do_i_sit_finds_an_unaccented_name(client, running_tournament):
    t = running_tournament
    helene = _helene(t)
    url = reverse("tournament_seats", args=[t.pk])
    response = client.get(url, {"q": "HELENE lefev"}, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    page = response.content.decode()
    assert "Hélène Lefèvre" in page
    for seat in Seat.objects.filter(player=helene).select_related("table_round__table", "round"):
        row = page.split(f'data-round="{seat.round.number}"')[1].split("</tr>")[0]
        assert f'<td class="seat-table">{seat.table_round.table.number}</td>' in row
        assert seat.get_position_display() in row
    assert client.get(url, {"q": "zz"}).content.decode().count("seat-route") == 0
    # htmx asks for the list alone.
    fragment = client.get(url, {"q": "helene"}, HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in fragment and "Hélène Lefèvre" in fragment


def test_where_do_i_sit_says_who_sits_out_at_a_table_of_five(client, personas):
    from tests.fixtures.tournaments import stage_tournament

    t = stage_tournament(personas=personas, players=9, rounds=1)
    seat = (
        Seat.objects.filter(round__tournament=t, table_round__table__size=5)
        .exclude(position="F")
        .select_related("table_round", "player")
        .first()
    )
    donnes = sorted(seat.table_round.etui_set.donnes.values_list("number", flat=True))
    out = [d for d, p in zip(donnes, seat.table_round.sit_outs, strict=False) if p == seat.position]
    page = client.get(
        reverse("tournament_seats", args=[t.pk]),
        {"q": seat.player.licence},
        HTTP_ACCEPT_LANGUAGE="en",
    ).content.decode()
    assert "sits out" in page
    if out:
        assert f"You sit out donne {out[0]}" in page


def test_an_anonymous_visitor_sees_a_score_card_as_another_player_does(
    client, running_tournament, personas
):
    """Public during play opens the ranking and the score cards, but a donne not yet played
    at every table stays hidden on someone else's card, exactly as for another player."""
    import re

    from tests.scoring.rankings.helpers import schedule

    t = running_tournament
    me = personas.player_user.player
    my_table = Seat.objects.get(player=me, round__number=1).table_round.table.number
    donne = next(d for r, tb, d in schedule(t) if (r, tb) == (1, my_table))
    enter(t, my_table, donne, personas.arbiter, points=60)
    url = reverse("score_card", args=[t.pk, me.pk])
    # "pending" for the room until every table has played it (RULES §6.1)
    row = rf'<tr data-donne="{donne}" data-status="\w+">.*?</tr>'
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200
    hidden = re.search(row, page.content.decode(), re.S).group(0)
    assert "Hidden until every table has played it" in hidden and "Garde" not in hidden
