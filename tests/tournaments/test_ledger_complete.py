"""Every change to a tournament is in its ledger — who, when, before, after — next to the
results and penalties; the ledger page and the API filter it. Publishing with results
missing asks to confirm and lists them."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from tests.fixtures.tournaments import make_players, stage_tournament
from tests.tournaments.test_seating_edit import valid_north_swap
from tournaments.models import LedgerEntry, Registration, Round, Tournament
from tournaments.services.results import round_close, round_open
from tournaments.services.tournaments import tournament_set_status

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
A = LedgerEntry.Action


def actions(t: Tournament) -> list[str]:
    return list(LedgerEntry.objects.filter(tournament=t).values_list("action", flat=True))


def test_changes_made_on_the_site_are_all_in_the_ledger(client, personas):
    organiser = personas.organiser
    t = stage_tournament(
        players=16, rounds=2, status=Tournament.Status.REGISTRATION, personas=personas
    )
    assert actions(t) == []  # the test set-up acts as nobody
    client.force_login(organiser)
    # Edit: before and after of what changed only.
    client.post(
        reverse("organiser_tournament_edit", args=[t.pk]),
        {
            "name": "Renommé",
            "date": "2026-12-05",
            "venue": "Salle des fêtes",
            "rounds": 2,
            "donnes_per_relais": 4,
            "method": "average",
            "matchpoint_penalty_rate": "0.1",
            "arbiters": [personas.arbiter.pk],
        },
    )
    edit = LedgerEntry.objects.get(tournament=t, action=A.TOURNAMENT_EDITED)
    assert edit.actor == organiser
    assert edit.before == {"name": "Tournoi du samedi"} and edit.after == {"name": "Renommé"}
    # A late arrival checked in once seated, then the seating regenerated.
    late = make_players(t.club, 1, start=700)[0]
    client.post(
        reverse("organiser_registration_add", args=[t.pk]), {"player": late.pk, "check_in": "1"}
    )
    changed = LedgerEntry.objects.get(tournament=t, action=A.REGISTRATION_CHANGED)
    assert changed.player == late and changed.before is None and changed.after["checked_in"]
    Registration.objects.filter(player=late).delete()  # 16 again, through the back door
    client.post(reverse("organiser_prepare_generate", args=[t.pk]), **EN)
    generated = LedgerEntry.objects.get(tournament=t, action=A.SEATING_GENERATED)
    assert (generated.reason, generated.reason_code) == ("", "seating_regenerated")
    assert generated.after["players"] == 16
    # A hand edit of the seating, in round 2.
    a, b = valid_north_swap(t)
    client.post(
        reverse("organiser_seating_swap", args=[t.pk]),
        {"round": 2, "player_a": a.player_id, "player_b": b.player_id},
    )
    swap = LedgerEntry.objects.get(tournament=t, action=A.SEATING_EDITED)
    assert swap.round.number == 2 and str(a.player) in swap.before
    # Status, rounds, finishing, publishing with a confirmation, the seed.
    client.post(reverse("organiser_tournament_status", args=[t.pk]), {"status": "running"})
    round_1 = Round.objects.get(tournament=t, number=1)
    round_open(round_=round_1, user=personas.arbiter)
    client.post(
        reverse("organiser_tournament_status", args=[t.pk]),
        {"status": "finished", "confirm_missing": "1"},
    )
    client.post(
        reverse("organiser_tournament_status", args=[t.pk]),
        {"status": "published", "confirm_missing": "1"},
        **EN,
    )
    client.post(reverse("organiser_prepare_reveal", args=[t.pk]))
    assert actions(t) == [
        A.TOURNAMENT_EDITED,
        A.REGISTRATION_CHANGED,
        A.SEATING_GENERATED,
        A.SEATING_EDITED,
        A.STATUS_CHANGED,
        A.ROUND_OPENED,
        A.STATUS_CHANGED,
        A.STATUS_CHANGED,
        A.SEED_REVEALED,
    ]
    statuses = LedgerEntry.objects.filter(tournament=t, action=A.STATUS_CHANGED)
    assert [(s.before["status"], s.after["status"]) for s in statuses] == [
        ("registration", "running"),
        ("running", "finished"),
        ("finished", "published"),
    ]
    published = statuses.last()
    assert (published.reason, published.reason_code) == ("", "published_missing")
    assert published.reason_params["count"] > 0
    opened = LedgerEntry.objects.get(tournament=t, action=A.ROUND_OPENED)
    assert (opened.actor, opened.round, opened.after["state"]) == (
        personas.arbiter,
        round_1,
        "open",
    )


def test_creation_is_recorded(client, personas):
    t = stage_tournament(players=8, personas=personas)
    client.force_login(personas.organiser)
    client.post(
        reverse("organiser_tournament_create"),
        {
            "club": t.club.pk,
            "name": "Nouveau",
            "date": "2026-12-24",
            "rounds": 3,
            "donnes_per_relais": 4,
            "method": "average",
            "matchpoint_penalty_rate": "0.1",
        },
    )
    created = Tournament.objects.get(name="Nouveau")
    entry = LedgerEntry.objects.get(tournament=created)
    assert entry.action == A.TOURNAMENT_CREATED and entry.actor == personas.organiser
    assert entry.after["rounds"] == 3 and entry.after["status"] == "draft"


@pytest.fixture
def busy(running_tournament, personas):
    """A running tournament with rounds opened and closed and a penalty."""
    from tests.tournaments.test_arbiter_views import save
    from tests.tournaments.test_arbiter_views import t as _hands  # noqa: F401
    from tests.tournaments.test_card_checks import deal, trumps
    from tournaments.models import Donne
    from tournaments.services.penalties import penalty_give

    t = running_tournament
    for donne in Donne.objects.filter(tournament=t):
        hands, chien = deal(N=["T21", "EX"], E=trumps(*range(2, 11)))
        Donne.objects.filter(pk=donne.pk).update(
            hand_n=hands["N"], hand_e=hands["E"], hand_s=hands["S"], hand_w=hands["W"], chien=chien
        )
    for table, donnes in ((1, (1, 2, 3, 4)), (2, (5, 6, 7, 8))):
        for donne in donnes:
            save(t, personas.arbiter, table, donne)
    round_close(round_=Round.objects.get(tournament=t, number=1), user=personas.arbiter)
    round_open(round_=Round.objects.get(tournament=t, number=2), user=personas.arbiter)
    penalty_give(
        tournament=t, player=personas.player_user.player, kind="warning", user=personas.arbiter
    )
    return t


def test_the_ledger_page_filters_by_kind_round_and_player(client, busy, personas):
    client.force_login(personas.arbiter)
    page = reverse("arbiter_ledger", args=[busy.pk])
    rows = lambda html: re.findall(r'<tr data-action="(\w+)"', html)  # noqa: E731
    everything = rows(client.get(page, **EN).content.decode())
    assert {"result_created", "round_closed", "round_opened", "penalty_given"} <= set(everything)
    assert rows(client.get(page + "?action=round_closed", **EN).content.decode()) == [
        "round_closed"
    ]
    in_round_1 = rows(client.get(page + "?round=1", **EN).content.decode())
    assert in_round_1.count("result_created") == 8 and "round_opened" not in in_round_1
    player = personas.player_user.player
    html = client.get(page + f"?player={player.pk}", **EN).content.decode()
    assert rows(html) == ["penalty_given"]
    assert "Show everything" in html


def test_the_api_lists_and_filters_the_ledger(busy, personas):
    api = APIClient()
    api.force_authenticate(personas.arbiter)
    path = f"/api/v1/tournaments/{busy.pk}/ledger/"
    body = api.get(path + "?action=round_closed,round_opened").json()["results"]
    assert [(e["action"], e["round"], e["actor"]) for e in body] == [
        ("round_closed", 1, "arbitre"),
        ("round_opened", 2, "arbitre"),
    ]
    assert (
        body[0]["before"]["state"] in ("open", "pending") and body[0]["after"]["state"] == "closed"
    )
    assert len(api.get(path + "?round=1&action=result_created").json()["results"]) == 8
    player = personas.player_user.player
    assert [e["action"] for e in api.get(path + f"?player={player.pk}").json()["results"]] == [
        "penalty_given"
    ]


def test_publishing_with_missing_results_asks_to_confirm_and_lists_them(client, personas):
    t = stage_tournament(players=8, personas=personas)
    from tests.tournaments.test_arbiter_views import save
    from tests.tournaments.test_card_checks import deal, trumps
    from tournaments.models import Donne

    for donne in Donne.objects.filter(tournament=t):
        hands, chien = deal(N=["T21", "EX"], E=trumps(*range(2, 11)))
        Donne.objects.filter(pk=donne.pk).update(
            hand_n=hands["N"], hand_e=hands["E"], hand_s=hands["S"], hand_w=hands["W"], chien=chien
        )
    save(t, personas.arbiter, 1, 1)
    Tournament.objects.filter(pk=t.pk).update(status=Tournament.Status.FINISHED)
    client.force_login(personas.organiser)
    status = reverse("organiser_tournament_status", args=[t.pk])
    response = client.post(status, {"status": "published"}, **EN)
    html = response.content.decode()
    assert response.status_code == 200
    assert "15 results are missing" in html
    cells = re.findall(r'data-cell="(\d+-\d+)"', html)
    assert len(cells) == 15 and "1-1" not in cells and "1-2" in cells
    assert 'name="confirm_missing" value="1"' in html
    assert Tournament.objects.get(pk=t.pk).status == Tournament.Status.FINISHED

    api = APIClient()
    api.force_authenticate(personas.organiser)
    path = f"/api/v1/tournaments/{t.pk}/status/"
    answer = api.post(path, {"status": "published"}, format="json", **EN)
    assert answer.status_code == 400 and answer.json()["code"] == "needs_confirmation"
    assert len(answer.json()["missing"]) == 15
    assert {"table": 1, "donne": 2} in answer.json()["missing"]
    assert Tournament.objects.get(pk=t.pk).status == Tournament.Status.FINISHED
    done = api.post(path, {"status": "published", "confirm_missing": True}, format="json")
    assert done.status_code == 200 and done.json()["status"] == "published"
    # Complete: no question asked.
    tournament_set_status(tournament=t, status="finished", user=personas.organiser)
    assert LedgerEntry.objects.filter(tournament=t, action=A.STATUS_CHANGED).count() == 2
