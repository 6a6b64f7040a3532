"""The table's page answers alike whatever the hands hold (RULES §5.2, §6.2).

The same entry is typed at the same table under two layouts of the cards; every answer the
players see (the live preview, the save) must be identical. What the cards say goes to the
arbiter only (``Result.card_flags``)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse

from tests.tournaments.test_card_checks import deal
from tests.tournaments.test_results_service import set_hands
from tests.tournaments.test_table_entry import _donnes, code_of, holders, table_round
from tournaments.models import Donne, Result
from tournaments.services.results import ResultInput, result_preview
from tournaments.services.table_entry import table_access_issue

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
# North takes: in one layout he holds the Excuse (the chelem leaves him 91 points), in the
# other East does (the chelem leaves the attack exactly 86.5, RULES §5.1).
LAYOUTS = {
    "taker_holds_excuse": {"N": ["T21", "T1", "EX"]},
    "defence_holds_excuse": {"N": ["T21", "T1"], "E": ["EX"]},
}
CHELEM = {
    "contract": "garde",
    "taker": "N",
    "bouts": "2",
    "points": "86.5",
    "chelem": "announced_made",
}
# Points that the declared bouts make impossible in one layout only (RULES §5.2).
GARDE_CONTRE = {"contract": "garde_contre", "taker": "N", "bouts": "1", "points": "79"}
CHIEN_LAYOUTS = {
    "chien_of_eight_points": {"N": ["T21"], "chien": ["SR", "HV", "S1", "S2", "S3", "S4"]},
    "chien_of_three_points": {"N": ["T21"], "chien": ["S1", "S2", "S3", "S4", "S5", "S6"]},
}


def _answers(client, t, layout: dict[str, list[str]], body: dict[str, str], d: int) -> dict:
    """What North's table sees when North types ``body`` on donne ``d`` dealt as ``layout``."""
    set_hands(Donne.objects.get(tournament=t, number=d), deal(**layout))
    access = table_access_issue(table_round=table_round(t))
    north = holders(t, 1, d)["N"]
    preview = client.post(reverse("table_preview", args=[access.secret, d]), body, **EN)
    proof = {"player": north.pk, "code": code_of(t, north)}
    save = client.post(reverse("table_save", args=[access.secret, d]), body | proof, **EN)
    saved = save.json()
    return {
        "preview": (preview.status_code, preview.json()),
        "save": (
            save.status_code,
            sorted(saved),
            saved.get("errors"),
            {k: v for k, v in saved.get("result", {}).items() if k not in ("id", "updated_at")},
        ),
    }


@pytest.mark.parametrize(
    ("layouts", "body"),
    [(LAYOUTS, CHELEM), (CHIEN_LAYOUTS, GARDE_CONTRE)],
    ids=["half_point_of_a_chelem", "points_with_the_bouts"],
)
def test_the_same_entry_answers_alike_under_two_layouts_of_the_cards(
    client, running_tournament, layouts, body
):
    t = running_tournament
    donnes = _donnes(t)
    answers = {
        name: _answers(client, t, layout, body, d)
        for d, (name, layout) in zip(donnes, layouts.items(), strict=False)
    }
    first, second = answers.values()
    assert first["preview"] == second["preview"]
    assert first["preview"][1]["warnings"] == {}
    assert first["save"] == second["save"]
    assert first["save"][0] == 200


def test_the_arbiter_is_told_what_the_cards_say_of_the_half_point(client, running_tournament):
    t = running_tournament
    kept, given = _donnes(t)[:2]
    _answers(client, t, LAYOUTS["taker_holds_excuse"], CHELEM, kept)
    saved = Result.objects.get(donne__number=kept, table__number=1)
    codes = {flag["code"] for flag in saved.card_flags}
    # North keeps his Excuse: 3 bouts and 91 points, and the half point cannot be exact.
    assert {"refused:bouts", "refused:points", "half_point"} <= codes
    # The arbiter's own form still answers from the cards.
    from tests.tournaments.test_results_service import cell

    entry = ResultInput(
        status="played",
        taker="N",
        contract="garde",
        bouts=2,
        points=Decimal("86.5"),
        chelem="announced_made",
    )
    preview = result_preview(**cell(t, 1, kept), data=entry)
    assert "half_point" in preview.warnings and "points" in preview.errors
    _answers(client, t, LAYOUTS["defence_holds_excuse"], CHELEM, given)
    saved = Result.objects.get(donne__number=given, table__number=1)
    assert saved.card_flags == []


def test_the_arbiter_is_told_the_points_the_bouts_rule_out(client, running_tournament):
    t = running_tournament
    eight, three = _donnes(t)[:2]
    _answers(client, t, CHIEN_LAYOUTS["chien_of_eight_points"], GARDE_CONTRE, eight)
    _answers(client, t, CHIEN_LAYOUTS["chien_of_three_points"], GARDE_CONTRE, three)
    flags = dict(Result.objects.filter(table__number=1).values_list("donne__number", "card_flags"))
    assert [f["code"] for f in flags[eight]] == ["points_above_bouts"]
    assert "at most 74 points" in flags[eight][0]["message"]
    assert flags[three] == []


@pytest.mark.parametrize(
    ("chelem", "warned"),
    [("", True), ("announced_failed", True), ("announced_made", False), ("defence", False)],
)
def test_the_table_is_told_of_a_half_point_unless_a_chelem_was_made(chelem, warned):
    from tournaments.services.checks import typed_warnings

    assert ("half_point" in typed_warnings(Decimal("50.5"), chelem)) is warned
    assert typed_warnings(Decimal(50), chelem) == {}
