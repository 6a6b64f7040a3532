"""The arbiter's screens: permission matrix for every URL × persona, then each screen."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.urls import reverse

from tests.fixtures.tournaments import stage_tournament
from tests.tournaments.test_card_checks import deal, trumps
from tournaments.models import (
    Donne,
    LedgerEntry,
    Penalty,
    Player,
    Result,
    Round,
    Table,
    TableRound,
    Tournament,
)
from tournaments.services.penalties import penalty_give
from tournaments.services.results import ResultInput, result_annul, result_save

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
GARDE = {"taker": "N", "contract": "garde", "bouts": "2", "points": "50"}


def set_hands(donne: Donne, the_deal) -> None:
    hands, chien = the_deal
    Donne.objects.filter(pk=donne.pk).update(
        hand_n=hands["N"], hand_e=hands["E"], hand_s=hands["S"], hand_w=hands["W"], chien=chien
    )


@pytest.fixture
def t(running_tournament):
    """Same hands on every database: North holds the 21 and the Excuse (no warning for the
    garde of North with 2 bouts); East holds 9 trumps (a poignée is impossible for him)."""
    for donne in Donne.objects.filter(tournament=running_tournament):
        set_hands(donne, deal(N=["T21", "EX"], E=trumps(*range(2, 11))))
    return running_tournament


def login(client, user) -> None:
    if user is not None:
        client.force_login(user)


def url(name: str, t: Tournament, *args) -> str:
    return reverse(name, args=[t.pk, *args])


def state(t: Tournament) -> tuple:
    return (
        Result.objects.count(),
        Penalty.objects.count(),
        Penalty.objects.filter(withdrawn_at__isnull=False).count(),
        LedgerEntry.objects.count(),
        tuple(
            Round.objects.filter(tournament=t).order_by("number").values_list("state", flat=True)
        ),
        Tournament.objects.get(pk=t.pk).results_version,
    )


# --- permission matrix ------------------------------------------------------------------------

PERSONAS = ["organiser", "arbiter", "other_arbiter", "player_user", "stranger", "anonymous"]
ALLOWED = {"organiser", "arbiter"}


def requests_for(t: Tournament) -> list[tuple[str, str, dict]]:
    """Every arbiter URL with a method and a payload that would change something."""
    player = Player.objects.filter(registrations__tournament=t).order_by("pk").first()
    penalty = Penalty.objects.filter(tournament=t).first()
    return [
        ("get", url("arbiter_dashboard", t), {}),
        ("get", url("arbiter_jump", t) + "?table=1&donne=2", {}),
        ("get", url("arbiter_result", t, 1, 1), {}),
        ("post", url("arbiter_result", t, 1, 2), GARDE),
        ("post", url("arbiter_result_preview", t, 1, 2), GARDE),
        ("post", url("arbiter_result_annul", t, 1, 3), {"reason": "mixed étuis"}),
        ("post", url("arbiter_round_open", t, 2), {"confirm_open": "1"}),
        ("post", url("arbiter_round_close", t, 1), {}),
        ("get", url("arbiter_penalties", t), {}),
        ("post", url("arbiter_penalties", t), {"player": player.pk, "kind": "early_pickup"}),
        ("post", url("arbiter_penalty_withdraw", t, penalty.pk), {"reason": "mistake"}),
        ("get", url("arbiter_ledger", t), {}),
    ]


@pytest.mark.parametrize("who", PERSONAS)
def test_permission_matrix(client, t, personas, who):
    # One result and one penalty exist, so that every URL has something to act on.
    for donne in (1,):
        result_save(
            tournament=t,
            table=Table.objects.get(tournament=t, number=1),
            donne=Donne.objects.get(tournament=t, number=donne),
            data=ResultInput(status="all_passed"),
            user=personas.arbiter,
            expected_version=None,
        )
    penalty_give(
        tournament=t,
        player=Player.objects.filter(registrations__tournament=t).last(),
        kind="warning",
        user=personas.arbiter,
    )
    login(client, None if who == "anonymous" else getattr(personas, who))
    for method, address, payload in requests_for(t):
        before = state(t)
        response = getattr(client, method)(address, payload, **EN)
        if who == "anonymous":
            assert response.status_code == 302, address
            assert response["Location"].startswith(reverse("login")), address
            assert state(t) == before, f"anonymous {method} {address} changed something"
        elif who in ALLOWED:
            assert response.status_code in (200, 302), (address, response.status_code)
        else:
            assert response.status_code == 403, (who, address, response.status_code)
            assert state(t) == before, f"{who} {method} {address} changed something"


def test_the_allowed_personas_did_change_things(client, t, personas):
    """The matrix's POSTs really write for an arbiter (so a 403 elsewhere means something)."""
    client.force_login(personas.arbiter)
    player = Player.objects.filter(registrations__tournament=t).order_by("pk").first()
    assert client.post(url("arbiter_result", t, 1, 2), GARDE).status_code == 302
    assert client.post(url("arbiter_result_annul", t, 1, 3), {"reason": "mixed"}).status_code == 302
    client.post(url("arbiter_penalties", t), {"player": player.pk, "kind": "early_pickup"})
    penalty = Penalty.objects.get()
    client.post(url("arbiter_penalty_withdraw", t, penalty.pk), {"reason": "mistake"})
    # Round 1 is still open: opening round 2 is confirmed.
    client.post(url("arbiter_round_open", t, 2), {"confirm_open": "1"})
    assert Result.objects.count() == 2
    assert not Penalty.objects.get().active
    assert Round.objects.get(tournament=t, number=2).state == "open"
    # Two results, a penalty and its withdrawal, and the round opened.
    assert LedgerEntry.objects.exclude(result=None, penalty=None).count() == 4
    assert list(
        LedgerEntry.objects.filter(result=None, penalty=None).values_list("action", flat=True)
    ) == ["round_opened"]


def test_the_tournament_page_links_the_arbiter_screens_for_managers_only(client, t, personas):
    client.force_login(personas.arbiter)
    page = client.get(t.get_absolute_url(), **EN).content.decode()
    assert url("arbiter_dashboard", t) in page
    client.force_login(personas.player_user)
    page = client.get(t.get_absolute_url(), **EN).content.decode()
    assert url("arbiter_dashboard", t) not in page


# --- dashboard --------------------------------------------------------------------------------


def save(t, user, table: int, donne: int, **extra) -> Result:
    data = extra.pop("data", ResultInput(status="all_passed"))
    return result_save(
        tournament=t,
        table=Table.objects.get(tournament=t, number=table),
        donne=Donne.objects.get(tournament=t, number=donne),
        data=data,
        user=user,
        expected_version=extra.pop("expected_version", None),
        **extra,
    )


def cells(html: str) -> dict[str, str]:
    return dict(re.findall(r'data-cell="(\d+-\d+)" data-state="(\w+)"', html))


def test_dashboard_shows_each_cell_state_and_the_counts(client, t, personas):
    arbiter = personas.arbiter
    save(t, arbiter, 1, 1)
    half = ResultInput(
        status="played", taker="N", contract="garde", bouts=2, points=Decimal("50.5")
    )
    save(t, arbiter, 1, 2, data=half, confirmed=["half_point"])
    result_annul(
        tournament=t,
        table=Table.objects.get(tournament=t, number=2),
        donne=Donne.objects.get(tournament=t, number=5),
        user=arbiter,
        reason="fouled étui",
        expected_version=None,
    )
    client.force_login(arbiter)
    response = client.get(url("arbiter_dashboard", t), **EN)
    html = response.content.decode()
    states = cells(html)
    assert len(states) == 16  # 2 rounds × 2 tables × 4 donnes
    assert states["1-1"] == "entered"
    assert states["1-2"] == "flagged"
    assert states["2-5"] == "annulled"
    assert states["1-3"] == "missing"
    assert "1 entered" in html and "1 flagged" in html and "1 annulled" in html
    assert "13 missing" in html
    assert "3 of 8 results" in html  # round 1
    assert "table 1, donne 3" in html  # the next missing result
    assert reverse("arbiter_result", args=[t.pk, 1, 3]) in html


def test_round_states_open_complete_closed(client, t, personas):
    client.force_login(personas.arbiter)
    html = client.get(url("arbiter_dashboard", t), **EN).content.decode()
    assert re.findall(r'id="round-(\d)" data-state="(\w+)"', html) == [
        ("1", "pending"),
        ("2", "pending"),
    ]
    for table_round in TableRound.objects.filter(round__tournament=t, round__number=1):
        for donne in Donne.objects.filter(etui_set=table_round.etui_set):
            save(t, personas.arbiter, table_round.table.number, donne.number)
    html = client.get(url("arbiter_dashboard", t), **EN).content.decode()
    assert ("1", "complete") in re.findall(r'id="round-(\d)" data-state="(\w+)"', html)
    response = client.post(url("arbiter_round_close", t, 1), follow=True, **EN)
    assert "Round 1 is closed." in response.content.decode()
    html = response.content.decode()
    assert ("1", "closed") in re.findall(r'id="round-(\d)" data-state="(\w+)"', html)
    assert "Reopen the round" in html
    # Closing an incomplete round is refused with the count of what is missing.
    client.post(url("arbiter_round_open", t, 2))
    response = client.post(url("arbiter_round_close", t, 2), follow=True, **EN)
    assert "Round 2 still misses 8 results" in response.content.decode()
    assert Round.objects.get(tournament=t, number=2).state == "open"


@pytest.mark.parametrize("players", [8, 20])
def test_dashboard_queries_do_not_grow_with_the_tournament(
    client, personas, players, django_assert_max_num_queries
):
    tournament = stage_tournament(players=players, rounds=3, personas=personas)
    first = TableRound.objects.filter(round__tournament=tournament).first()
    for donne in Donne.objects.filter(etui_set=first.etui_set):
        set_hands(donne, deal(N=["T21", "EX"]))
        save(tournament, personas.arbiter, first.table.number, donne.number)
    client.force_login(personas.arbiter)
    # Session, user, tournament, permission, rounds, table rounds, donnes, results, penalties,
    # and the open calls to the arbiter (issue 34: the live panel and its tag).
    with django_assert_max_num_queries(10):
        response = client.get(url("arbiter_dashboard", tournament))
    assert response.status_code == 200
    assert len(cells(response.content.decode())) == players // 4 * 3 * 4


def test_the_jump_box_goes_to_a_cell_or_says_what_is_wrong(client, t, personas):
    client.force_login(personas.arbiter)
    response = client.get(url("arbiter_jump", t), {"table": 2, "donne": 3})
    assert response["Location"] == reverse("arbiter_result", args=[t.pk, 2, 3])
    response = client.get(url("arbiter_jump", t), {"table": 2, "donne": 42}, follow=True, **EN)
    assert "Table 2 does not play donne 42" in response.content.decode()
    response = client.get(url("arbiter_jump", t), {"table": "x"}, follow=True, **EN)
    assert "Enter a table number and a donne number" in response.content.decode()
    # Back where the box was, but never to another site.
    back = reverse("arbiter_result", args=[t.pk, 1, 2])
    response = client.get(url("arbiter_jump", t), {"table": 9, "donne": 1, "next": back})
    assert response["Location"] == back
    response = client.get(url("arbiter_jump", t), {"donne": 1, "next": "//evil.example/"})
    assert response["Location"] == reverse("arbiter_dashboard", args=[t.pk])


# --- entering a result ------------------------------------------------------------------------


def test_the_entry_page_names_the_players_by_position(client, t, personas):
    client.force_login(personas.arbiter)
    table_round = TableRound.objects.get(round__tournament=t, round__number=1, table__number=1)
    seats = {s.position: s.player for s in table_round.seats.select_related("player")}
    html = client.get(url("arbiter_result", t, 1, 1), **EN).content.decode()
    for position, label in (("N", "North"), ("E", "East"), ("S", "South"), ("W", "West")):
        assert f"{label}: <strong>{seats[position]}</strong>" in html
    assert 'id="id_taker_N" value="N" autofocus' in html
    for contract in (
        "Prise",
        "Garde",
        "Garde sans le chien",
        "Garde contre le chien",
        "All passed",
    ):
        assert contract in html
    assert "<kbd>Enter</kbd>" in html and "Keyboard" in html


def test_at_a_table_of_five_the_page_says_who_sits_out(client, personas):
    tournament = stage_tournament(players=9, personas=personas)
    five = Table.objects.get(tournament=tournament, size=5)
    table_round = TableRound.objects.get(table=five, round__number=1)
    seats = {s.position: s.player for s in table_round.seats.select_related("player")}
    donne = Donne.objects.filter(etui_set=table_round.etui_set).order_by("number").first()
    client.force_login(personas.arbiter)
    html = client.get(url("arbiter_result", tournament, five.number, donne.number), **EN)
    html = html.content.decode()
    sitter = seats[table_round.sit_outs[0]]
    assert f"Sits out this donne (mort): {sitter}" in html
    if table_round.sit_outs[0] != "F":
        label = {"N": "North", "E": "East", "S": "South", "W": "West"}[table_round.sit_outs[0]]
        assert f"{label}: <strong>{seats['F']}</strong>" in html


def test_the_preview_shows_scores_and_how_they_are_made(client, t, personas):
    client.force_login(personas.arbiter)
    response = client.post(
        url("arbiter_result_preview", t, 1, 1),
        {**GARDE, "petit_au_bout": "attack"},
        HTTP_HX_REQUEST="true",
        **EN,
    )
    html = response.content.decode()
    assert "<html" not in html  # a fragment for htmx
    # (25 + 9 + 10) × 2 = 88 per defender; the taker scores 264.
    assert re.search(r'data-position="N".*?data-score>\+264<', html, re.S)
    assert re.search(r'data-position="E".*?data-score>\u221288<', html, re.S)
    assert 'data-part="contract">68<' in html
    assert 'data-part="petit_au_bout">20<' in html
    assert Result.objects.count() == 0


def test_the_preview_lists_what_is_missing_and_refuses_an_impossible_poignee(client, t, personas):
    client.force_login(personas.arbiter)
    html = client.post(url("arbiter_result_preview", t, 1, 1), {"taker": "N"}, **EN)
    assert "Still to enter:" in html.content.decode()
    html = client.post(
        url("arbiter_result_preview", t, 1, 1), {**GARDE, "poignee_E": "simple"}, **EN
    ).content.decode()
    assert "cannot show a simple poignée: that hand held 9 trumps" in html


def test_saving_moves_to_the_next_missing_cell(client, t, personas):
    client.force_login(personas.arbiter)
    save(t, personas.arbiter, 1, 2)
    response = client.post(url("arbiter_result", t, 1, 1), GARDE, **EN)
    assert response.status_code == 302
    assert response["Location"] == reverse("arbiter_result", args=[t.pk, 1, 3])
    assert Result.objects.get(donne__number=1).scores["N"] == 204
    # The last donne of table 1 moves on to table 2 (whose set is donnes 5-8).
    save(t, personas.arbiter, 1, 3)
    response = client.post(url("arbiter_result", t, 1, 4), GARDE)
    assert response["Location"] == reverse("arbiter_result", args=[t.pk, 2, 5])


def test_a_refused_entry_shows_the_error_on_its_field_and_saves_nothing(client, t, personas):
    client.force_login(personas.arbiter)
    response = client.post(url("arbiter_result", t, 1, 1), {**GARDE, "poignee_E": "simple"}, **EN)
    assert response.status_code == 400
    html = response.content.decode()
    assert re.search(r'id="errors-poignee_E">.*?held 9 trumps', html, re.S)
    response = client.post(url("arbiter_result", t, 1, 1), {**GARDE, "points": "cinquante"}, **EN)
    assert "Enter the attack&#x27;s points as a number" in response.content.decode()
    assert Result.objects.count() == 0


def test_a_warning_is_confirmed_with_its_checkbox(client, t, personas):
    client.force_login(personas.arbiter)
    entry = {**GARDE, "points": "50,5"}
    response = client.post(url("arbiter_result", t, 1, 1), entry, **EN)
    assert response.status_code == 400
    html = response.content.decode()
    assert "Not saved yet: confirm the warnings" in html
    assert 'name="confirm" value="half_point"' in html
    assert Result.objects.count() == 0
    response = client.post(url("arbiter_result", t, 1, 1), {**entry, "confirm": "half_point"})
    assert response.status_code == 302
    assert Result.objects.get().confirmed_warnings == ["half_point"]


def test_a_correction_needs_a_reason_and_shows_in_the_history(client, t, personas):
    client.force_login(personas.arbiter)
    client.post(url("arbiter_result", t, 1, 1), GARDE)
    page = client.get(url("arbiter_result", t, 1, 1), **EN).content.decode()
    assert 'name="version" value="1"' in page
    assert 'id="id_taker_N" value="N" checked autofocus' in page
    assert "Reason for the correction" in page
    lost = {**GARDE, "points": "35", "version": "1"}
    response = client.post(url("arbiter_result", t, 1, 1), lost, **EN)
    assert response.status_code == 400
    assert "Give a reason for the correction" in response.content.decode()
    response = client.post(url("arbiter_result", t, 1, 1), {**lost, "reason": "misread"})
    assert response.status_code == 302
    page = client.get(url("arbiter_result", t, 1, 1), **EN).content.decode()
    history = page[page.index('id="history"') :]
    assert "Result entered" in history and "Result corrected" in history
    assert "misread" in history
    assert "50 points" in history and "35 points" in history


def test_a_conflict_shows_the_other_version_and_overwrites_nothing(client, t, personas):
    client.force_login(personas.arbiter)
    # The organiser saves while the arbiter's empty form is open.
    save(
        t,
        personas.organiser,
        1,
        1,
        data=ResultInput(status="played", taker="E", contract="prise", bouts=1, points=Decimal(60)),
    )
    response = client.post(url("arbiter_result", t, 1, 1), GARDE, **EN)
    assert response.status_code == 409
    html = response.content.decode()
    assert "Conflict: someone else saved this result" in html
    assert "orga saved version 1" in html
    assert "Prise by East" in html
    assert 'name="version" value="1"' in html  # saving again now needs a reason
    result = Result.objects.get()
    assert result.contract == "prise" and result.version == 1
    # The arbiter decides his entry is right: with a reason it replaces the other.
    response = client.post(
        url("arbiter_result", t, 1, 1), {**GARDE, "version": "1", "reason": "sheet says garde"}
    )
    assert response.status_code == 302
    assert Result.objects.get().contract == "garde"


def test_annulling_from_the_entry_page(client, t, personas):
    client.force_login(personas.arbiter)
    response = client.post(url("arbiter_result_annul", t, 1, 1), {"reason": ""}, follow=True, **EN)
    assert "Give the reason for the annulment" in response.content.decode()
    assert Result.objects.count() == 0
    response = client.post(url("arbiter_result_annul", t, 1, 1), {"reason": "cards mixed"})
    assert response.status_code == 302
    result = Result.objects.get()
    assert result.status == "annulled" and result.annul_reason == "cards mixed"
    page = client.get(url("arbiter_result", t, 1, 1), **EN).content.decode()
    assert "This donne is annulled at this table." in page


# --- penalties and ledger ---------------------------------------------------------------------


def test_penalty_page_gives_and_withdraws(client, t, personas):
    client.force_login(personas.arbiter)
    player = Player.objects.filter(registrations__tournament=t).order_by("pk").first()
    page = client.get(url("arbiter_penalties", t) + f"?player={player.pk}&donne=3", **EN)
    assert f'<option value="{player.pk}" selected>' in page.content.decode()
    response = client.post(
        url("arbiter_penalties", t), {"player": player.pk, "kind": "other"}, **EN
    )
    assert response.status_code == 400
    assert "Write the reason for this penalty" in response.content.decode()
    response = client.post(
        url("arbiter_penalties", t),
        {"player": player.pk, "kind": "early_pickup"},
        follow=True,
        **EN,
    )
    assert f"Penalty of 100 points given to {player}" in response.content.decode()
    penalty = Penalty.objects.get()
    response = client.post(
        url("arbiter_penalty_withdraw", t, penalty.pk),
        {"reason": "dealt already"},
        follow=True,
        **EN,
    )
    html = response.content.decode()
    assert "Withdrawn" in html and "dealt already" in html
    assert Penalty.objects.get().withdrawn_by == personas.arbiter


def test_the_ledger_lists_every_change(client, t, personas, django_assert_max_num_queries):
    arbiter = personas.arbiter
    save(t, arbiter, 1, 1)
    save(
        t,
        arbiter,
        1,
        1,
        data=ResultInput(status="played", taker="N", contract="garde", bouts=2, points=Decimal(50)),
        expected_version=1,
        reason="they did bid",
    )
    result_annul(
        tournament=t,
        table=Table.objects.get(tournament=t, number=2),
        donne=Donne.objects.get(tournament=t, number=6),
        user=arbiter,
        reason="étui fouled",
        expected_version=None,
    )
    player = Player.objects.filter(registrations__tournament=t).order_by("pk").first()
    penalty = penalty_give(tournament=t, player=player, kind="early_pickup", user=arbiter)
    from tournaments.services.penalties import penalty_withdraw

    penalty_withdraw(penalty=penalty, user=personas.organiser, reason="wrong player")
    client.force_login(arbiter)
    with django_assert_max_num_queries(10):
        response = client.get(url("arbiter_ledger", t), **EN)
    html = response.content.decode()
    actions = re.findall(r'<tr data-action="(\w+)"', html)
    assert actions == [
        "penalty_withdrawn",
        "penalty_given",
        "result_annulled",
        "result_changed",
        "result_created",
    ]
    for text in ("they did bid", "étui fouled", "wrong player", "All passed", "Garde by North"):
        assert text in html
    assert "orga" in html and "arbitre" in html
