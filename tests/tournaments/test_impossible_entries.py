"""Entries that cannot happen (RULES.md §5.1): what a chelem and the petit au bout say about
bouts, points and the known hands. Refused by the engine and the result service, the same way
through the arbiter's form, its live preview and the API."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import translation
from rest_framework.test import APIClient

from tests.tournaments.test_card_checks import check, deal, trumps
from tournaments.models import Donne, Result, Table, Tournament
from tournaments.services.results import ResultInput, ResultInvalid, result_preview, result_save

# --- against the hands (no database) ---------------------------------------------------------


def test_a_chelem_of_the_attack_when_a_defender_holds_the_21():
    errors, _ = check(
        deal(W=["T21"], N=["EX", "T1"]),
        bouts=2,
        points=Decimal("86.5"),
        chelem="unannounced_made",
    )
    assert errors["chelem"].startswith("West holds the 21: the defence takes at least one trick")


def test_a_chelem_of_the_defence_when_the_taker_holds_the_21():
    errors, _ = check(deal(N=["T21"]), bouts=0, points=Decimal(0), chelem="defence")
    assert "North, the taker, holds the 21" in errors["chelem"]
    # The 21 in the chien of a garde: the taker takes it and cannot discard a bout.
    errors, _ = check(deal(chien=["T21"]), bouts=0, points=Decimal(0), chelem="defence")
    assert "North, the taker, holds the 21" in errors["chelem"]
    # Under garde contre the chien goes to the defence: no refusal for the 21.
    errors, _ = check(
        deal(chien=["T21"]), contract="garde_contre", bouts=0, points=Decimal(0), chelem="defence"
    )
    assert "chelem" not in errors


@pytest.mark.parametrize(
    ("fixed", "contract", "expected"),
    [
        ({"N": ["T21", "EX", "T1"]}, "garde", 3),
        ({"N": ["T21", "T1"], "E": ["EX"]}, "garde", 2),
        ({"N": ["T21"], "E": ["EX"], "chien": ["T1"]}, "garde_contre", 1),
        ({"N": ["T21"], "chien": ["EX", "T1"]}, "garde_contre", 1),
        ({"N": ["T21"], "chien": ["EX", "T1"]}, "garde_sans", 3),
    ],
)
def test_a_chelem_of_the_attack_owns_exactly_the_bouts_the_hands_give(fixed, contract, expected):
    for bouts in range(4):
        errors, _ = check(
            deal(**fixed),
            contract=contract,
            bouts=bouts,
            points=Decimal(91),
            chelem="announced_made",
        )
        assert ("bouts" in errors) == (bouts != expected), (bouts, errors)
    errors, _ = check(
        deal(**fixed),
        contract=contract,
        bouts=expected - 1,
        points=Decimal(91),
        chelem="announced_made",
    )
    bouts = "bout" if expected == 1 else "bouts"
    assert f"owns exactly {expected} {bouts}, not {expected - 1}" in errors["bouts"]


def test_a_chelem_of_the_attack_has_exactly_the_points_the_hands_give():
    hands = deal(N=["T21", "T1"], E=["EX"])
    errors, _ = check(hands, bouts=2, points=Decimal("86"), chelem="unannounced_made")
    assert "exactly 86.5 points, not 86 (East holds the Excuse and keeps it)" in errors["points"]
    errors, _ = check(hands, bouts=2, points=Decimal("86.5"), chelem="unannounced_made")
    assert "points" not in errors and "bouts" not in errors
    # Above is as impossible as below: East keeps the Excuse, the attack cannot have 91.
    errors, _ = check(hands, bouts=2, points=Decimal("91"), chelem="unannounced_made")
    assert "exactly 86.5 points, not 91" in errors["points"]


def test_a_chelem_of_the_defence_leaves_the_attack_the_excuse_and_the_chien_of_a_garde_sans():
    hands = deal(N=["EX"], E=["T21"], chien=["T1"])
    errors, _ = check(hands, contract="garde_sans", bouts=2, points=Decimal(10), chelem="defence")
    assert "bouts" not in errors and "chelem" not in errors
    errors, _ = check(hands, contract="garde", bouts=2, points=Decimal(10), chelem="defence")
    assert "exactly 1 bout, not 2" in errors["bouts"]
    errors, _ = check(deal(E=["T21", "EX"]), bouts=1, points=Decimal(5), chelem="defence")
    assert "exactly 0 bouts, not 1 (the defence takes every card)" in errors["bouts"]
    # The taker keeps his Excuse: fewer bouts than that are as impossible as more.
    errors, _ = check(deal(N=["EX"]), bouts=0, points=Decimal(3), chelem="defence")
    assert "exactly 1 bout, not 0 (North holds the Excuse and keeps it)" in errors["bouts"]


@pytest.mark.parametrize("contract", ["garde_sans", "garde_contre"])
def test_no_petit_au_bout_when_the_petit_lies_in_a_chien_nobody_plays(contract):
    hands = deal(N=["T21"], chien=["T1"])
    for camp in ("attack", "defence"):
        errors, _ = check(hands, contract=contract, bouts=1, points=Decimal(40), petit_au_bout=camp)
        assert "The Petit lies in the chien" in errors["petit_au_bout"]
    # Under a garde the taker plays the Petit of the chien: allowed. A Petit held by a defender
    # can be captured and led to the end by the attack: allowed too.
    errors, _ = check(hands, contract="garde", bouts=2, points=Decimal(50), petit_au_bout="attack")
    assert "petit_au_bout" not in errors
    errors, _ = check(deal(E=["T1"]), bouts=1, points=Decimal(50), petit_au_bout="attack")
    assert "petit_au_bout" not in errors


# --- the reported entries, through the form, the preview and the API -------------------------

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
CHELEM_52 = {
    "taker": "N",
    "contract": "garde",
    "bouts": "1",
    "points": "52",
    "chelem": "unannounced_made",
}


def set_hands(donne: Donne, the_deal) -> None:
    hands, chien = the_deal
    Donne.objects.filter(pk=donne.pk).update(
        hand_n=hands["N"], hand_e=hands["E"], hand_s=hands["S"], hand_w=hands["W"], chien=chien
    )


@pytest.fixture
def t(running_tournament):
    """West holds the 21, North the Excuse; the Petit lies in the chien."""
    for donne in Donne.objects.filter(tournament=running_tournament):
        set_hands(donne, deal(W=["T21"], N=["EX"], chien=["T1"], E=trumps(*range(2, 11))))
    return running_tournament


def _west(t: Tournament) -> str:
    ctx_preview = result_preview(
        tournament=t,
        table=Table.objects.get(tournament=t, number=1),
        donne=Donne.objects.get(tournament=t, number=1),
        data=ResultInput(status="played"),
    )
    return str(ctx_preview.context.seats["W"])


REPORTED = [
    pytest.param(CHELEM_52, {"chelem", "bouts"}, id="chelem-52-points-1-bout-21-in-defence"),
    pytest.param(
        {
            "taker": "N",
            "contract": "garde",
            "bouts": "0",
            "points": "30",
            "petit_au_bout": "attack",
        },
        {"petit_au_bout"},
        id="petit-au-bout-attack-0-bouts",
    ),
    pytest.param(
        {
            "taker": "N",
            "contract": "garde_sans",
            "bouts": "1",
            "points": "45",
            "petit_au_bout": "attack",
        },
        {"petit_au_bout"},
        id="petit-au-bout-petit-in-chien-garde-sans",
    ),
]


@pytest.mark.parametrize(("entry", "fields"), REPORTED)
def test_the_reported_entries_are_refused_by_the_form_and_the_api(
    client, t, personas, entry, fields
):
    client.force_login(personas.arbiter)
    path = reverse("arbiter_result", args=[t.pk, 1, 1])
    response = client.post(path, entry, **EN)
    assert response.status_code == 400
    html = response.content.decode()
    preview = client.post(
        reverse("arbiter_result_preview", args=[t.pk, 1, 1]), entry, HTTP_HX_REQUEST="true", **EN
    ).content.decode()

    api = APIClient()
    api.force_authenticate(personas.arbiter)
    body = {**entry, "table": 1, "donne": 1, "bouts": int(entry["bouts"])}
    answer = api.post(f"/api/v1/tournaments/{t.pk}/results/", body, format="json", **EN)
    assert answer.status_code == 400
    details = answer.json()["details"]
    assert fields <= set(details)

    # Same messages everywhere: the API's details, the form's errors and the live preview.
    for messages in details.values():
        for message in messages:
            escaped = message.replace("'", "&#x27;")
            assert escaped in html
            assert escaped in preview
    assert not Result.objects.exists()


def test_the_chelem_message_names_the_player_and_the_card_in_french(t, personas):
    west = _west(t)
    with translation.override("fr"), pytest.raises(ResultInvalid) as info:
        result_save(
            tournament=t,
            table=Table.objects.get(tournament=t, number=1),
            donne=Donne.objects.get(tournament=t, number=1),
            data=ResultInput(
                status="played",
                taker="N",
                contract="garde",
                bouts=1,
                points=Decimal(52),
                chelem="unannounced_made",
            ),
            user=personas.arbiter,
            expected_version=None,
        )
    messages = info.value.errors["chelem"]
    assert any(
        m.startswith(f"Ouest ({west}) tient le 21\u202f: la défense fait au moins un pli")
        for m in messages
    ), messages
    # The engine's own refusal (bouts of a chelem) is there too, in French.
    assert any("au moins 2 bouts, pas 1" in m for m in messages), messages
    assert re.search(r"exactement 3 bout", " ".join(info.value.errors["bouts"]))
