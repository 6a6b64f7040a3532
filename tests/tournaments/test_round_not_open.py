"""A round opens only on purpose (issue 30.8).

While an earlier round is not closed, a result in a round not yet open is refused with the
reason, on the arbiter's page, the API and the shared service the table page uses; the
arbiter opens the round from the dashboard after a confirmation, and the ledger says so. The
earliest round not closed still opens with its first result, as the room plays it. The entry
chain stops at the end of the round it is in.
"""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

from tests.fixtures.tournaments import stage_tournament
from tests.tournaments.api.conftest import client_for
from tournaments.models import Donne, LedgerEntry, Result, Round, TableRound, Tournament
from tournaments.services.checks import WARNING_CODES
from tournaments.services.results import ResultInput, ResultInvalid, result_save, round_close

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
PASSED = ResultInput(status="all_passed")
REFUSAL = "Round 2 has not started: round 1 is still being played."


def cells(t: Tournament, number: int) -> list[tuple[int, int]]:
    """The (table, donne) cells of round ``number``, in entry order."""
    out = []
    for tr in TableRound.objects.filter(round__tournament=t, round__number=number).order_by(
        "table__number"
    ):
        donnes = Donne.objects.filter(etui_set_id=tr.etui_set_id).order_by("number")
        out += [(tr.table.number, d.number) for d in donnes]
    return out


def save(t: Tournament, user, cell: tuple[int, int]) -> Result:
    table = t.tables.get(number=cell[0])
    donne = t.donnes.get(number=cell[1])
    return result_save(
        tournament=t,
        table=table,
        donne=donne,
        data=PASSED,
        user=user,
        expected_version=None,
        confirmed=WARNING_CODES,
    )


def state(t: Tournament) -> tuple[int, int, list[str]]:
    return (
        Result.objects.filter(tournament=t).count(),
        LedgerEntry.objects.filter(tournament=t).count(),
        list(Round.objects.filter(tournament=t).order_by("number").values_list("state", flat=True)),
    )


def round_opened_lines(t: Tournament, number: int) -> list[LedgerEntry]:
    return list(
        LedgerEntry.objects.filter(
            tournament=t, action=LedgerEntry.Action.ROUND_OPENED, round__number=number
        )
    )


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


@pytest.fixture
def t(personas) -> Tournament:
    """Round 1 open (its first result opened it), round 2 not started."""
    tournament = stage_tournament(personas=personas)
    save(tournament, personas.arbiter, cells(tournament, 1)[0])
    return tournament


def complete_round_1(t: Tournament, user) -> None:
    for cell in cells(t, 1)[1:]:
        save(t, user, cell)


class TestService:
    def test_the_first_result_of_the_earliest_round_opens_it(self, t):
        assert state(t)[2] == ["open", "pending"]

    def test_a_result_in_a_later_round_is_refused_with_the_reason(self, t, personas):
        before = state(t)
        with pytest.raises(ResultInvalid, match=REFUSAL):
            save(t, personas.arbiter, cells(t, 2)[0])
        assert state(t) == before
        assert before[2] == ["open", "pending"]
        with translation.override("fr"), pytest.raises(ResultInvalid) as caught:
            save(t, personas.arbiter, cells(t, 2)[0])
        assert "Le tour 2 n’a pas commencé\u202f: le tour 1 est encore en cours." in str(
            caught.value
        )

    def test_once_the_earlier_round_is_closed_the_next_opens_with_its_first_result(
        self, t, personas
    ):
        complete_round_1(t, personas.arbiter)
        round_close(round_=Round.objects.get(tournament=t, number=1), user=personas.arbiter)
        save(t, personas.arbiter, cells(t, 2)[0])
        assert state(t)[2] == ["closed", "open"]


class TestArbiterPage:
    def test_the_chain_stops_at_the_end_of_the_round(self, client, t, personas):
        client.force_login(personas.arbiter)
        first, *rest = cells(t, 1)[1:]
        *middle, last = [first, *rest]
        for cell in middle:
            save(t, personas.arbiter, cell)
        response = client.post(
            reverse("arbiter_result", args=[t.pk, *last]), {"contract": "all_passed"}, **EN
        )
        dashboard = reverse("arbiter_dashboard", args=[t.pk])
        assert response.status_code == 302
        assert response["Location"] == dashboard + "#round-1"
        page = client.get(dashboard, **EN).content.decode()
        assert "Every result of round 1 is entered." in page
        assert 'id="rounds-entered"' in page and "Every result is entered." not in page
        assert state(t)[2] == ["open", "pending"]

    def test_the_skip_link_stays_in_the_round(self, client, t, personas):
        client.force_login(personas.arbiter)
        round_1 = cells(t, 1)
        for cell in round_1[1:-1]:
            save(t, personas.arbiter, cell)
        html = client.get(reverse("arbiter_result", args=[t.pk, *round_1[-1]]), **EN)
        assert "Skip to table" not in html.content.decode()

    def test_a_cell_of_a_round_not_open_says_so_and_refuses_the_save(self, client, t, personas):
        client.force_login(personas.arbiter)
        target = reverse("arbiter_result", args=[t.pk, *cells(t, 2)[0]])
        html = client.get(target, **EN).content.decode()
        assert 'id="round-not-started"' in html
        assert "Round 2 has not started: round 1 is still being played." in html
        assert reverse("arbiter_round_open", args=[t.pk, 2]) in html
        before = state(t)
        response = client.post(target, {"contract": "all_passed"}, **EN)
        assert response.status_code == 400
        assert REFUSAL in response.content.decode()
        assert state(t) == before

    def test_opening_the_round_needs_the_confirmation_and_is_in_the_ledger(
        self, client, t, personas
    ):
        client.force_login(personas.arbiter)
        opening = reverse("arbiter_round_open", args=[t.pk, 2])
        page = client.post(opening, **EN)
        assert page.status_code == 200
        assert 'id="round-open-confirm"' in page.content.decode()
        assert state(t)[2] == ["open", "pending"]
        client.post(opening, {"confirm_open": "1"}, **EN)
        assert state(t)[2] == ["open", "open"]
        (line,) = round_opened_lines(t, 2)
        assert line.actor == personas.arbiter and line.reason_code == ""
        response = client.post(
            reverse("arbiter_result", args=[t.pk, *cells(t, 2)[0]]), {"contract": "all_passed"}
        )
        assert response.status_code == 302


def test_the_api_refuses_a_result_in_a_round_not_open(t, personas):
    table, donne = cells(t, 2)[0]
    before = state(t)
    response = client_for(personas.arbiter).post(
        f"/api/v1/tournaments/{t.pk}/results/",
        {"table": table, "donne": donne, "status": "all_passed"},
        format="json",
    )
    assert response.status_code == 400, response.json()
    assert REFUSAL in str(response.json())
    assert state(t) == before
