"""The result service against the bounds of the hands (RULES.md §5.1, §5.2): what the cards
allow is never questioned; each kind of impossible or unlikely entry is refused or warned, with
the reason and the cards, in French and English, on the form, the preview and the API."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from scoring.rules import cards, engine
from scoring.rules.card_bounds import poignee_trumps
from scoring.rules.dealing import deal_attempt
from tests.tournaments.test_card_checks import check, deal, trumps
from tests.tournaments.test_impossible_entries import set_hands
from tournaments.models import Donne, Result
from tournaments.services.checks import card_checks

POSITIONS = ("N", "E", "S", "W")
CONTRACTS = ("prise", "garde", "garde_sans", "garde_contre")

# --- nothing the cards allow is questioned ------------------------------------------------------


def _discard(rng: random.Random, taken: list[cards.Card]) -> list[cards.Card]:
    """A legal écart (RULES §3): no king nor bout, trumps only when unavoidable."""
    suit = [c for c in taken if c.suit is not None and c.rank != 14]
    if len(suit) >= 6:
        return rng.sample(suit, 6)
    spare = [c for c in taken if c.is_trump and not c.is_bout]
    return suit + rng.sample(spare, 6 - len(suit))


def play(rng: random.Random, hands, chien, taker: str, contract: str) -> dict:
    """One plausible outcome of the donne: the taker's écart, who took how many tricks and
    which cards, the Excuse returned to its holder, the announcements the hands allow."""
    played = {p: list(h) for p, h in hands.items()}
    attack_cards: list[cards.Card] = []
    if contract in ("prise", "garde"):
        taken = played[taker] + list(chien)
        discard = _discard(rng, taken)
        played[taker] = [c for c in taken if c not in discard]
        attack_cards += discard
    elif contract == "garde_sans":
        attack_cards += chien
    camp = {c: (p == taker) for p, h in played.items() for c in h}
    holder_21 = camp.get(cards.TRUMP_21)
    chelems = [""]
    if holder_21 is not False:
        chelems += ["announced_made", "unannounced_made"]
    if holder_21 is not True:
        chelems.append("defence")
    chelem = rng.choice(chelems)
    petit_played = cards.PETIT in camp
    if chelem in ("announced_made", "unannounced_made"):
        tricks = 18
        petit = rng.choice(["", "attack"]) if petit_played else ""
    elif chelem == "defence":
        tricks = 0
        petit = rng.choice(["", "defence"]) if petit_played else ""
    else:
        tricks = rng.randint(1, 17)
        chelem = rng.choice(["", "announced_failed"])
        petit = rng.choice(["", "attack", "defence"]) if petit_played else ""
    fixed = {cards.TRUMP_21: holder_21, cards.EXCUSE: camp.get(cards.EXCUSE)}
    if petit:
        fixed[cards.PETIT] = petit == "attack"
    if tricks in (0, 18):  # every card to the winner but an Excuse its holder keeps
        fixed = {c: tricks == 18 for c in camp}
        if cards.EXCUSE in camp:
            fixed[cards.EXCUSE] = camp[cards.EXCUSE]
    won = [c for c, mine in fixed.items() if mine]
    free = [c for c in camp if c not in fixed]
    rng.shuffle(free)
    count = 4 * tricks if tricks not in (0, 18) else len(won)
    won += free[: count - len(won)]
    attack_cards += won
    poignees = {}
    for position in POSITIONS:
        held = poignee_trumps(hands, chien, position, taker=taker, contract=contract)
        sizes = [
            s for s in ("simple", "double", "triple") if held >= engine.poignee_min_trumps(4, s)
        ]
        if sizes and rng.random() < 0.5:
            poignees[position] = rng.choice(sizes)
    points = cards.points_in(attack_cards)
    return {
        "bouts": cards.bouts_in(attack_cards),
        "points": Decimal(points.numerator) / points.denominator,
        "petit_au_bout": petit,
        "chelem": chelem,
        "poignees": poignees,
    }


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**64))
def test_nothing_the_cards_allow_is_refused_or_questioned(seed):
    rng = random.Random(seed)
    dealt, chien = deal_attempt(seed.to_bytes(16, "big"), "played", 1)
    hands = dict(zip(POSITIONS, dealt, strict=True))
    texts = {p: cards.format_hand(h) for p, h in hands.items()}
    for _ in range(25):  # 3,000 results in all
        taker, contract = rng.choice(POSITIONS), rng.choice(CONTRACTS)
        entry = play(rng, hands, chien, taker, contract)
        assert not engine.deal_errors(
            4,
            contract,
            entry["bouts"],
            entry["points"],
            entry["petit_au_bout"] or None,
            list(entry["poignees"].values()),
            entry["chelem"] or None,
        ), entry
        errors, warnings = card_checks(
            hands=texts, chien=cards.format_hand(chien), taker=taker, contract=contract, **entry
        )
        assert (errors, warnings) == ({}, {}), (taker, contract, entry)


# --- each kind of impossible or unlikely entry --------------------------------------------------


def test_a_petit_au_bout_of_a_taker_who_holds_the_21_means_two_bouts():
    the_deal = deal(N=["T21"], E=["T1", "EX"])
    _, warnings = check(the_deal, bouts=1, points=Decimal(50), petit_au_bout="attack")
    message = warnings["bouts_held_by_attack"]
    assert "the 21 held by North, the Petit won by the attack at the last trick" in message
    assert "at least 2" in message
    assert check(the_deal, bouts=2, points=Decimal(50), petit_au_bout="attack")[1] == {}
    # The other way: the defence holds the 21 and took the Petit at the end.
    _, warnings = check(deal(E=["T21"]), bouts=2, points=Decimal(50), petit_au_bout="defence")
    assert "at most 1" in warnings["bouts_held_by_defence"]


@pytest.mark.parametrize(("excuse", "exact"), [("N", "4.5"), ("E", "0")])
def test_a_defence_chelem_under_garde_contre_leaves_the_attack_its_excuse_only(excuse, exact):
    fixed = {"N": ["EX"], "E": ["T21"]} if excuse == "N" else {"E": ["T21", "EX"]}
    the_deal = deal(**fixed)
    bouts = 1 if excuse == "N" else 0
    entry = {"contract": "garde_contre", "bouts": bouts, "chelem": "defence"}
    errors, _ = check(the_deal, points=Decimal(12), **entry)
    assert f"exactly {exact} points, not 12" in errors["points"]
    assert check(the_deal, points=Decimal(exact), **entry) == ({}, {})


def test_an_attack_chelem_under_garde_contre_has_91_less_the_chien():
    the_deal = deal(N=["T21", "T1", "EX"], chien=["SR", "HR"])
    chien = cards.points_in(cards.parse_hand(the_deal[1]))
    entry = {"contract": "garde_contre", "bouts": 3, "chelem": "unannounced_made"}
    errors, _ = check(the_deal, points=Decimal(91), **entry)
    assert f"exactly {91 - chien} points, not 91" in errors["points"]
    assert "the chien of the garde contre (11 points, 0 bouts)" in errors["points"]
    assert check(the_deal, points=Decimal(91 - int(chien)), **entry) == ({}, {})


def test_the_chien_bounds_the_points_of_a_garde_sans_and_a_garde_contre():
    the_deal = deal(N=["T21", "T1", "EX"], chien=["SR", "HR", "SD"])
    chien = int(cards.points_in(cards.parse_hand(the_deal[1])))  # 15
    _, warnings = check(the_deal, contract="garde_contre", bouts=3, points=Decimal(80))
    assert (
        f"the chien counts for the defence: {chien} points (King of spades"
        in (warnings["points_above_chien"])
    )
    assert f"at most {91 - chien}" in warnings["points_above_chien"]
    assert check(the_deal, contract="garde_contre", bouts=3, points=Decimal(91 - chien))[1] == {}
    _, warnings = check(the_deal, contract="garde_sans", bouts=3, points=Decimal(chien - 1))
    assert f"the chien counts for it: {chien} points" in warnings["points_below_chien"]
    # With its 3 bouts (13.5 points) besides the chien, the attack has at least chien + 13.5.
    _, warnings = check(the_deal, contract="garde_sans", bouts=3, points=Decimal(chien + 13))
    assert list(warnings) == ["points_below_bouts"]
    assert check(the_deal, contract="garde_sans", bouts=3, points=Decimal(chien + 14))[1] == {}


def test_the_smallest_ecart_bounds_the_points_of_a_prise():
    # North and the chien hold no low suit card: three valets and three cavaliers at least.
    faces = ["SV", "HV", "DV", "SD", "HD", "DD", "SR", "HR", "DR", "CR"]
    the_deal = deal(
        N=[*faces, *trumps(*range(2, 10))], chien=["SC", "HC", "DC", "CC", "T10", "T11"]
    )
    _, warnings = check(the_deal, contract="prise", bouts=0, points=Decimal(4))
    assert "the smallest écart is worth 12 points" in warnings["points_below_discard"]
    _, warnings = check(the_deal, contract="prise", bouts=0, points=Decimal(12))
    assert "points_below_discard" not in warnings


# RULES §5.2's examples: North takes and holds the 21; the chien is 8 points without a bout.
WITH_BOUTS = deal(N=["T21"], chien=["SR", "HV", "S1", "S2", "S3", "S4"])


def test_the_declared_bouts_bound_the_points_of_a_garde_contre():
    entry = {"contract": "garde_contre", "bouts": 1}
    _, warnings = check(WITH_BOUTS, points=Decimal(79), **entry)
    assert list(warnings) == ["points_above_bouts"]
    message = warnings["points_above_bouts"]
    assert "the defence owns 2 bouts (9 points)" in message
    assert "8 points (King of spades, " in message and ", Jack of hearts)" in message
    assert "at most 74 points" in message
    assert check(WITH_BOUTS, points=Decimal(74), **entry) == ({}, {})  # at the bound
    # With 2 bouts the defence owns one (4.5): 78.5 at most; 78 is possible.
    assert check(WITH_BOUTS, points=Decimal(78), **{**entry, "bouts": 2}) == ({}, {})
    assert "points_above_bouts" in check(WITH_BOUTS, points=Decimal(80), **{**entry, "bouts": 2})[1]


def test_the_declared_bouts_and_the_smallest_ecart_bound_the_points_of_a_garde():
    # North holds ten low spades: his smallest écart is worth 3 points, never a bout.
    _, warnings = check(WITH_BOUTS, contract="garde", bouts=1, points=Decimal(7))
    assert list(warnings) == ["points_below_bouts"]
    message = warnings["points_below_bouts"]
    assert "1 bout (4.5 points)" in message and "the écart of North counts for it" in message
    assert "at least 3 points. The attack has at least 7.5 points" in message
    assert check(WITH_BOUTS, contract="garde", bouts=1, points=Decimal(8)) == ({}, {})


def test_the_declared_bouts_and_the_chien_bound_the_points_of_a_garde_sans():
    _, warnings = check(WITH_BOUTS, contract="garde_sans", bouts=2, points=Decimal(16))
    assert list(warnings) == ["points_below_bouts"]
    assert "at least 17 points" in warnings["points_below_bouts"]
    assert check(WITH_BOUTS, contract="garde_sans", bouts=2, points=Decimal(17)) == ({}, {})


def test_the_points_with_the_bouts_are_said_in_french():
    hands, chien = WITH_BOUTS
    entry = {"hands": hands, "chien": chien, "taker": "N", "poignees": {}}
    with translation.override("fr"):
        _, contre = card_checks(**entry, contract="garde_contre", bouts=1, points=Decimal(79))
        _, garde = card_checks(**entry, contract="garde", bouts=1, points=Decimal(7))
    assert (
        "donc la défense a 2 bouts (9 points) et, en garde contre, le chien hors de ses "
        "bouts\u202f: 8 points (Roi de pique, " in contre["points_above_bouts"]
    )
    assert ", Valet de cœur). L’attaque a au plus 74 points." in contre["points_above_bouts"]
    assert "L’attaque a au moins 7,5 points." in garde["points_below_bouts"]


def test_a_defence_chelem_under_a_garde_leaves_the_attack_its_ecart_and_excuse():
    the_deal = deal(N=["EX"], E=["T21", "T1"])
    _, warnings = check(the_deal, bouts=1, points=Decimal("23.5"), chelem="defence")
    assert "points_above_discard" in warnings
    assert "North holds the Excuse and keeps it" in warnings["points_above_discard"]
    assert check(the_deal, bouts=1, points=Decimal("7.5"), chelem="defence") == ({}, {})


def test_the_half_point_is_questioned_except_where_a_chelem_makes_it_exact():
    assert "half_point" in check(deal(), bouts=1, points=Decimal("50.5"))[1]
    chelem = deal(N=["T21", "T1"], E=["EX"])
    entry = {"bouts": 2, "points": Decimal("86.5"), "chelem": "unannounced_made"}
    assert check(chelem, **entry) == ({}, {})
    # Half a point on a chelem that does not leave an Excuse behind is refused, not questioned.
    errors, warnings = check(deal(N=["T21", "T1", "EX"]), **{**entry, "bouts": 3})
    assert "exactly 91 points" in errors["points"] and "half_point" in warnings


def test_the_warning_names_the_card_and_its_holder_in_french():
    the_deal = deal(N=["T21"], E=["T1", "EX"])
    hands, chien = the_deal
    with translation.override("fr"):
        _, warnings = card_checks(
            hands=hands,
            chien=chien,
            taker="N",
            contract="garde",
            bouts=1,
            points=Decimal(50),
            poignees={},
            petit_au_bout="attack",
        )
    assert (
        "le 21, chez Nord, le Petit pris par l’attaque au dernier pli"
        in (warnings["bouts_held_by_attack"])
    )


# --- the same warnings on the arbiter's form, its preview and the API ---------------------------

GARDE_CONTRE = {"taker": "N", "contract": "garde_contre", "bouts": "3", "points": "80"}


@pytest.mark.django_db
def test_the_chien_warning_reaches_the_form_the_preview_and_the_api(
    client, running_tournament, personas
):
    t = running_tournament
    for donne in Donne.objects.filter(tournament=t):
        set_hands(donne, deal(N=["T21", "T1", "EX"], chien=["SR", "HR", "SD"]))
    client.force_login(personas.arbiter)
    for path in ("arbiter_result", "arbiter_result_preview"):
        html = client.post(
            reverse(path, args=[t.pk, 1, 1]),
            GARDE_CONTRE,
            HTTP_HX_REQUEST="true",
            HTTP_ACCEPT_LANGUAGE="fr",
        ).content.decode()
        assert "en garde contre le chien compte pour la défense\u202f: " in html
    api = APIClient()
    api.force_authenticate(personas.arbiter)
    body = {**GARDE_CONTRE, "table": 1, "donne": 1, "bouts": 3}
    url = f"/api/v1/tournaments/{t.pk}/results/"
    answer = api.post(url, body, format="json", HTTP_ACCEPT_LANGUAGE="en")
    assert answer.status_code == 422
    assert answer.json()["code"] == "needs_confirmation"
    assert list(answer.json()["warnings"]) == ["points_above_chien"]
    assert not Result.objects.exists()
    saved = api.post(url, {**body, "confirm": ["points_above_chien"]}, format="json")
    assert saved.status_code == 201
    assert saved.json()["confirmed_warnings"] == ["points_above_chien"]


@pytest.mark.django_db
def test_the_points_with_the_bouts_are_confirmed_on_the_api(running_tournament, personas):
    t = running_tournament
    for donne in Donne.objects.filter(tournament=t):
        set_hands(donne, WITH_BOUTS)
    api = APIClient()
    api.force_authenticate(personas.arbiter)
    body = {"table": 1, "donne": 1, "taker": "N", "contract": "garde_contre", "bouts": 1}
    body["points"] = "79"
    url = f"/api/v1/tournaments/{t.pk}/results/"
    answer = api.post(url, body, format="json", HTTP_ACCEPT_LANGUAGE="en")
    assert answer.status_code == 422 and list(answer.json()["warnings"]) == ["points_above_bouts"]
    assert not Result.objects.exists()
    saved = api.post(url, {**body, "confirm": ["points_above_bouts"]}, format="json")
    assert saved.status_code == 201
    assert saved.json()["confirmed_warnings"] == ["points_above_bouts"]


@pytest.mark.django_db
def test_the_table_page_reads_the_cards_once_per_entry(client, running_tournament, monkeypatch):
    from tests.tournaments.test_table_entry import first_donne, holders, table_round
    from tournaments.services import checks
    from tournaments.services.table_entry import table_access_issue

    t = running_tournament
    for donne in Donne.objects.filter(tournament=t):
        set_hands(donne, deal(N=["T21", "EX"]))
    access = table_access_issue(table_round=table_round(t))
    d = first_donne(t)
    calls = []
    real = checks.card_checks
    monkeypatch.setattr(checks, "card_checks", lambda **kw: calls.append(kw) or real(**kw))
    # East holds no trump: the cards refuse his poignée, which the table is not told (RULES §6.2).
    entry = {"contract": "garde", "taker": "N", "bouts": "2", "points": "50"}
    entry |= {"poignee_E": "simple", "player": holders(t, 1, d)["N"].pk}
    preview = client.post(
        reverse("table_preview", args=[access.secret, d]), entry, HTTP_ACCEPT_LANGUAGE="en"
    ).json()
    assert preview["errors"] == {}
    assert len(calls) == 1
