"""The claims window on the screens and in print: the table's page files a claim with the
player's code, the arbiter records and settles on his claims page, the organiser closes
early; the ranking page, the room screen and the ranking PDF say provisional until the
window's end, then final; the arbiter's log lists the claims with their outcome."""

from __future__ import annotations

import pytest
from django.urls import reverse

from scoring.documents.models import Document
from tests.fixtures.tournaments import stage_tournament
from tests.scoring.documents.pdf import pdf_text
from tests.scoring.documents.test_renderers import render
from tournaments.models import Claim, Seat
from tournaments.services.claims import claim_file, claim_settle
from tournaments.services.table_entry import player_codes_get, table_access_issue

from .helpers import cell, close_every_round, window_passed

pytestmark = pytest.mark.django_db
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
FR = {"HTTP_ACCEPT_LANGUAGE": "fr"}


@pytest.fixture
def closed(personas):
    t = stage_tournament(personas=personas)
    close_every_round(t, personas.arbiter)
    return t


def test_a_player_files_a_claim_from_the_table_page_with_his_code(client, closed):
    t = closed
    table, donne, player = cell(t)
    access = table_access_issue(
        table_round=Seat.objects.get(
            player=player, table_round__table=table, round__number=1
        ).table_round
    )
    page = client.get(reverse("table_page", args=[access.secret]), **EN)
    assert page.status_code == 403  # the round is closed: no entry any more ...
    claim_url = reverse("table_claim", args=[access.secret])
    assert claim_url in page.content.decode()  # ... but a claim during the window
    form = client.get(claim_url, **FR).content.decode()
    assert "Classement provisoire" in form and 'id="claim-form"' in form
    codes = player_codes_get(tournament=t)
    body = {"donne": donne.number, "kind": "result", "text": "Petit au bout oublié"}
    wrong = client.post(claim_url, {**body, "player": player.pk, "code": "0000"}, **EN)
    assert wrong.status_code == 400 and not Claim.objects.exists()
    done = client.post(claim_url, {**body, "player": player.pk, "code": codes[player.pk]}, **EN)
    assert done.status_code == 200 and 'id="claim-filed"' in done.content.decode()
    claim = Claim.objects.get()
    assert claim.filed_by == player and claim.table == table and claim.donne == donne
    window_passed(t)
    late = client.post(claim_url, {**body, "player": player.pk, "code": codes[player.pk]}, **EN)
    assert "closed at" in late.content.decode() and Claim.objects.count() == 1


def test_the_arbiter_records_and_settles_on_his_claims_page(client, closed, personas):
    t = closed
    table, donne, player = cell(t)
    client.force_login(personas.arbiter)
    url = reverse("arbiter_claims", args=[t.pk])
    refused = client.post(
        url, {"table": table.number, "donne": 99, "kind": "result", "text": "x"}, **EN
    )
    assert refused.status_code == 400 and "no donne 99" in refused.content.decode()
    posted = client.post(
        url,
        {
            "table": table.number,
            "donne": donne.number,
            "kind": "result",
            "text": "Garde, pas prise",
            "player": player.pk,
        },
    )
    assert posted.status_code == 302
    claim = Claim.objects.get()
    assert claim.recorded_by == personas.arbiter and claim.filed_by == player
    page = client.get(url, **EN).content.decode()
    assert f'data-claim="{claim.pk}"' in page and "Garde, pas prise" in page
    settle = reverse("arbiter_claim_settle", args=[t.pk, claim.pk])
    client.post(settle, {"state": "rejected", "reason": "Feuille signée par les quatre"})
    claim.refresh_from_db()
    assert claim.state == "rejected" and claim.settled_by == personas.arbiter
    again = client.post(settle, {"state": "accepted", "reason": "Non"}, follow=True, **EN)
    assert "already settled" in again.content.decode()
    # A penalty the penalties' rules refuse ("other" without points): said, nothing settled.
    client.post(url, {"table": table.number, "donne": donne.number, "kind": "result", "text": "y"})
    second = Claim.objects.get(state="open")
    refused = client.post(
        reverse("arbiter_claim_settle", args=[t.pk, second.pk]),
        {
            "state": "accepted",
            "reason": "Oui",
            "penalty_player": player.pk,
            "penalty_kind": "other",
        },
        follow=True,
        **EN,
    )
    assert refused.status_code == 200 and "points" in refused.content.decode().lower()
    second.refresh_from_db()
    assert second.is_open and not second.penalty_id
    # A stranger sees nothing of it.
    client.force_login(personas.stranger)
    assert client.get(url).status_code == 403


def test_the_organiser_closes_the_window_early(client, closed, personas):
    t = closed
    client.force_login(personas.organiser)
    client.post(reverse("arbiter_claims_close", args=[t.pk]))
    t.refresh_from_db()
    assert t.final_at is not None


def test_ranking_page_room_screen_and_pdf_say_provisional_then_final(client, closed, personas):
    t = closed
    from tournaments.models import Tournament

    Tournament.objects.filter(pk=t.pk).update(status="published")
    t.refresh_from_db()
    ranking = client.get(reverse("ranking", args=[t.pk]), **FR).content.decode()
    assert 'data-claims="provisional"' in ranking and "réclamations" in ranking.lower()
    room = client.get(reverse("room_screen", args=[t.pk]), **FR).content.decode()
    assert 'data-claims="provisional"' in room
    title = pdf_text(render(t, Document.Kind.RANKING))
    assert "Ranking, provisional — claims until" in title
    window_passed(t)
    from tournaments.services.claims import claims_sweep

    assert claims_sweep() == [t.pk]
    t.refresh_from_db()
    ranking = client.get(reverse("ranking", args=[t.pk]), **FR).content.decode()
    assert 'data-claims="final"' in ranking
    assert "Ranking, final" in pdf_text(render(t, Document.Kind.RANKING))


def test_the_arbiters_log_lists_the_claims_with_their_outcome(closed, personas):
    t = closed
    table, donne, player = cell(t)
    claim = claim_file(
        tournament=t,
        table=table,
        donne=donne,
        kind="result",
        text="Chelem non compté",
        player=player,
    )
    claim_settle(claim=claim, user=personas.arbiter, state="rejected", reason="Pas de chelem")
    claim_file(
        tournament=t,
        table=table,
        donne=donne,
        kind="result",
        text="Deuxième réclamation",
        player=player,
    )
    text = pdf_text(render(t, Document.Kind.ARBITER_LOG))
    assert "Claims" in text and "Chelem non compté" in text and "Pas de chelem" in text
    assert "Rejected" in text and "Open" in text and "Deuxième réclamation" in text
    # The ledger's lines of the claims say what the claim changed, not a result's fields.
    assert "Claim filed" in text and "None" not in text and "by ?" not in text


def test_a_player_files_a_claim_from_their_own_page(client, closed, personas):
    t = closed
    client.force_login(personas.player_user)
    detail = client.get(reverse("tournament_detail", args=[t.pk]), **EN).content.decode()
    url = reverse("tournament_claim", args=[t.pk])
    assert url in detail
    page = client.get(url, **EN)
    assert page.status_code == 200
    cell_value = page.context["form"].fields["cell"].choices[0][0]
    done = client.post(url, {"cell": cell_value, "kind": "result", "text": "Erreur de points"})
    assert done.status_code == 200 and 'id="claim-filed"' in done.content.decode()
    claim = Claim.objects.get()
    assert claim.filed_by.user == personas.player_user
    # Another cell's value (not theirs) is not offered.
    assert client.post(url, {"cell": "0:0", "kind": "result", "text": "x"}).status_code == 400
    client.force_login(personas.stranger)
    assert client.get(url).status_code == 403
