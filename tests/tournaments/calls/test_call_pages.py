"""The calls over HTTP (issue 34): the table page's call (with its code, its resend, the
table's own view of its calls, never hands), the arbiter's live panel (204 while nothing
changed), the call's page (take, rule, the étui as dealt, its PDF) and who may see them."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.scoring.documents.pdf import page_count, pdf_text
from tests.tournaments.test_table_entry import EN, code_of, holders
from tournaments.models import ArbiterCall, Penalty

from .conftest import access_of, call, relais

pytestmark = pytest.mark.django_db
HAND_TOKEN = re.compile(r"hand_[nesw]|\b[SHDC]:")


def _call_url(access) -> str:
    return reverse("table_call", args=[access.secret])


def _post_call(client, t, access, **fields):
    donne = relais(t)[0]
    north = holders(t, 1, donne.number)["N"]
    body = {
        "player": north.pk,
        "code": code_of(t, north),
        "donne": donne.number,
        "irregularity": "renonce",
        "phone_time": "1700000000000",
        "ref": "ref-1",
    } | fields
    return client.post(_call_url(access), body, HTTP_IDEMPOTENCY_KEY=fields.get("key", "k1"), **EN)


def test_a_player_calls_from_the_table_page_and_a_resend_is_one_call(client, t):
    access = access_of(t)
    answer = _post_call(client, t, access)
    assert answer.status_code == 200, answer.json()
    data = answer.json()
    assert data["call"]["state"] == "open" and not data["call"]["joined"]
    assert data["calls"][0]["irregularity_label"] == "Revoke"
    again = _post_call(client, t, access)
    assert again.json() == data and again["Idempotent-Replayed"] == "true"
    assert ArbiterCall.objects.count() == 1
    # A phone time years off is not believed: the server's time is kept.
    assert ArbiterCall.objects.get().phone_time is None


def test_the_phones_time_is_kept_when_believable(client, t):
    import time

    from django.utils import timezone

    sent = int(time.time() * 1000) - 90_000  # queued offline a minute and a half ago
    answer = _post_call(client, t, access_of(t), phone_time=str(sent), key="k9", ref="r9")
    assert answer.status_code == 200, answer.json()
    call = ArbiterCall.objects.get()
    assert abs(call.phone_time.timestamp() * 1000 - sent) < 1
    assert 85 < (timezone.now() - call.called_at).total_seconds() < 120


def test_a_bad_call_is_a_400_naming_the_field_and_a_wrong_code_saves_nothing(client, t):
    access = access_of(t)
    answer = _post_call(client, t, access, irregularity="tricherie", key="k2", ref="r2")
    assert answer.status_code == 400 and "irregularity" in answer.json()["errors"]
    other = relais(t, 2)[0].number
    answer = _post_call(client, t, access, donne=other, key="k3", ref="r3")
    assert answer.status_code == 400
    assert answer.json()["errors"]["donne"] == [
        f"Donne {other} is not played at this table in this round."
    ]
    answer = _post_call(client, t, access, code="99999", key="k4", ref="r4")
    assert answer.status_code == 400 and "code" in answer.json()["errors"]
    assert not ArbiterCall.objects.exists()


def test_the_table_sees_its_calls_state_and_ruling_in_its_state_and_never_hands(
    client, t, personas
):
    access = access_of(t)
    state_url = reverse("table_state", args=[access.secret])
    first = client.get(state_url)
    tag = first["ETag"]
    made = call(t)
    second = client.get(state_url, HTTP_IF_NONE_MATCH=tag)
    assert second.status_code == 200 and second.json()["calls"][0]["state"] == "open"
    from tournaments.services.calls import CallRuling, call_rule

    west = holders(t, 1, made.donne.number)["W"]
    call_rule(
        call=made,
        user=personas.arbiter,
        ruling=CallRuling(ruling="penalty", player=west, kind="early_pickup"),
    )
    third = client.get(state_url, HTTP_IF_NONE_MATCH=second["ETag"])
    seen = third.json()["calls"][0]
    assert seen["state"] == "ruled" and seen["ruling"] == "penalty"
    assert seen["penalty"] == {"player": str(west), "points": 100}
    assert not HAND_TOKEN.search(third.content.decode())
    # Another table's page knows nothing of this call.
    other = client.get(reverse("table_state", args=[access_of(t, 2).secret]))
    assert other.json()["calls"] == []


def test_the_live_panel_answers_204_while_nothing_changed(
    client, t, personas, django_assert_max_num_queries
):
    client.force_login(personas.arbiter)
    url = reverse("arbiter_calls_panel", args=[t.pk])
    empty = client.get(url)
    assert empty.status_code == 200 and b"calls-none" in empty.content
    tag = re.search(rb'tag=([^"&]+)"', empty.content).group(1).decode()
    # Session, user, tournament, permission, and the open calls' keys.
    with django_assert_max_num_queries(5):
        assert client.get(url, {"tag": tag}).status_code == 204
    made = call(t)
    fresh = client.get(url, {"tag": tag})
    assert fresh.status_code == 200 and f'data-call="{made.pk}"'.encode() in fresh.content
    assert b'data-open="1"' in fresh.content
    # Taken: the panel changes (the table's phones see it too).
    new_tag = re.search(rb'tag=([^"&]+)"', fresh.content).group(1).decode()
    client.post(reverse("arbiter_call_take", args=[t.pk, made.pk]))
    taken = client.get(url, {"tag": new_tag})
    assert taken.status_code == 200 and b'data-state="en_route"' in taken.content
    board = client.get(reverse("arbiter_dashboard", args=[t.pk]))
    assert f'data-call="{made.pk}"'.encode() in board.content


def test_only_the_arbiter_sees_the_panel_and_the_call(client, t, personas):
    made = call(t)
    urls = [
        reverse("arbiter_calls_panel", args=[t.pk]),
        reverse("arbiter_call", args=[t.pk, made.pk]),
        reverse("arbiter_calls", args=[t.pk]),
        reverse("arbiter_call_etui_pdf", args=[t.pk, made.pk]),
    ]
    for url in urls:
        assert client.get(url).status_code == 302  # to the login page
    client.force_login(personas.stranger)
    for url in urls:
        assert client.get(url).status_code == 403
    answer = client.post(reverse("arbiter_call_take", args=[t.pk, made.pk]))
    assert answer.status_code == 403
    made.refresh_from_db()
    assert made.state == "open"


def test_the_arbiter_takes_and_rules_from_the_call_page(client, t, personas):
    made = call(t)
    client.force_login(personas.arbiter)
    page = reverse("arbiter_call", args=[t.pk, made.pk])
    client.post(reverse("arbiter_call_take", args=[t.pk, made.pk]))
    made.refresh_from_db()
    assert made.state == "en_route" and made.taken_by == personas.arbiter
    east = holders(t, 1, made.donne.number)["E"]
    refused = client.post(page, {"ruling": "penalty", "player": east.pk}, **EN)
    assert refused.status_code == 400 and b"Choose the penalty" in refused.content
    answer = client.post(page, {"ruling": "penalty", "player": east.pk, "kind": "early_pickup"})
    assert answer.status_code == 302
    made.refresh_from_db()
    assert made.ruling == "penalty" and made.penalty.player == east
    assert Penalty.objects.get().points == 100
    again = client.post(page, {"ruling": "none"}, **EN)
    assert again.status_code == 400 and b"already ruled" in again.content


def test_an_etui_call_shows_the_hands_as_dealt_and_prints_one_page(client, t, personas):
    made = call(t, irregularity="etui_mal_replace")
    plain = call(t, donne=relais(t)[1])
    client.force_login(personas.arbiter)
    page = client.get(reverse("arbiter_call", args=[t.pk, made.pk]))
    assert b'id="etui"' in page.content and b'data-hand="chien"' in page.content
    assert b'id="etui"' not in client.get(reverse("arbiter_call", args=[t.pk, plain.pk])).content
    pdf = client.get(reverse("arbiter_call_etui_pdf", args=[t.pk, made.pk]))
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    assert page_count(pdf.content) == 1
    text = pdf_text(pdf.content)
    assert f"Donne {made.donne.number}" in text and "Chien" in text
