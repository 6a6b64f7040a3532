"""A penalty's donne is one the player played or sat out at his table (RULES.md §8)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation
from rest_framework.test import APIClient

from tests.fixtures.tournaments import stage_tournament
from tournaments.models import Donne, Penalty, Seat
from tournaments.services.penalties import PenaltyInvalid, penalty_give, player_donne_numbers

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.fixture
def t(personas):
    """12 players at 3 tables over 2 rounds: each plays 8 of the 12 donnes."""
    return stage_tournament(players=12, rounds=2, personas=personas)


def played_and_not(t, player) -> tuple[list[int], int]:
    sets = set(
        Seat.objects.filter(player=player, round__tournament=t).values_list(
            "table_round__etui_set__number", flat=True
        )
    )
    donnes = Donne.objects.filter(tournament=t)
    played = sorted(d.number for d in donnes if d.etui_set.number in sets)
    other = next(d.number for d in donnes.order_by("number") if d.number not in played)
    return played, other


def test_the_donnes_of_a_player_are_those_of_his_tables(t, personas):
    player = personas.player_user.player
    played, _ = played_and_not(t, player)
    assert len(played) == 8
    assert player_donne_numbers(tournament=t, player=player) == played


def test_a_donne_he_never_plays_is_refused_saying_which_he_plays(t, personas):
    player = personas.player_user.player
    played, other = played_and_not(t, player)
    with translation.override("en"), pytest.raises(PenaltyInvalid) as info:
        penalty_give(
            tournament=t,
            player=player,
            kind="early_pickup",
            user=personas.arbiter,
            donne=Donne.objects.get(tournament=t, number=other),
        )
    message = info.value.errors["donne"][0]
    assert f"does not play donne {other}" in message
    runs = [[played[0]]]
    for n in played[1:]:
        runs[-1].append(n) if n == runs[-1][-1] + 1 else runs.append([n])
    assert ", ".join(f"{r[0]}-{r[-1]}" for r in runs) in message
    assert not Penalty.objects.exists()
    penalty = penalty_give(
        tournament=t,
        player=player,
        kind="early_pickup",
        user=personas.arbiter,
        donne=Donne.objects.get(tournament=t, number=played[-1]),
    )
    assert penalty.donne.number == played[-1]


def test_the_form_and_the_api_refuse_it_alike(client, t, personas):
    player = personas.player_user.player
    _, other = played_and_not(t, player)
    donne = Donne.objects.get(tournament=t, number=other)
    client.force_login(personas.arbiter)
    response = client.post(
        reverse("arbiter_penalties", args=[t.pk]),
        {"player": player.pk, "kind": "early_pickup", "donne": donne.pk},
        **EN,
    )
    assert response.status_code == 400
    assert f"does not play donne {other}" in response.content.decode()
    api = APIClient()
    api.force_authenticate(personas.arbiter)
    answer = api.post(
        f"/api/v1/tournaments/{t.pk}/penalties/",
        {"player": player.pk, "kind": "early_pickup", "donne": other},
        format="json",
        **EN,
    )
    assert answer.status_code == 400
    assert f"does not play donne {other}" in answer.json()["details"]["donne"][0]
    assert not Penalty.objects.exists()


def test_a_penalty_sent_twice_through_the_api_with_its_key_counts_once(t, personas):
    player = personas.player_user.player
    api = APIClient()
    api.force_authenticate(personas.arbiter)
    body = {"player": player.pk, "kind": "early_pickup"}
    path = f"/api/v1/tournaments/{t.pk}/penalties/"
    first = api.post(path, body, format="json", HTTP_IDEMPOTENCY_KEY="pen-1")
    again = api.post(path, body, format="json", HTTP_IDEMPOTENCY_KEY="pen-1")
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json()["id"] == first.json()["id"]
    assert Penalty.objects.count() == 1
