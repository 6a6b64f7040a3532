"""The arbiter's other forms are acted on once too: a double click on "new page" or "new
code" issues one and the page shows the one that works; on "add minutes" it adds them once."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.tournaments.test_table_entry import holders, table_round
from tests.tournaments.test_table_entry import t as t
from tournaments.models import Round, TableAccess
from tournaments.once import FIELD, once_token
from tournaments.services.table_entry import player_codes_get

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
REPLAY_NOTE = "This form had already been sent"


def twice(client, path: str):
    data = {FIELD: once_token()}
    return client.post(path, data, **EN), client.post(path, data, **EN)


def test_a_new_table_page_sent_twice_issues_one(client, t, personas):
    client.force_login(personas.arbiter)
    tr = table_round(t, 1)
    client.get(reverse("arbiter_tables", args=[t.pk]))  # the pages of the round exist
    before = TableAccess.objects.filter(table_round=tr).count()
    first, second = twice(client, reverse("arbiter_table_reissue", args=[t.pk, tr.pk]))
    assert TableAccess.objects.filter(table_round=tr).count() == before + 1
    live = TableAccess.objects.get(table_round=tr, revoked_at=None)
    assert second["Location"] == first["Location"]
    page = client.get(second["Location"], **EN).content.decode()
    assert REPLAY_NOTE in page
    codes = re.findall(r"new page: code (\w+)", page)
    assert codes and set(codes) == {live.short_code}


def test_a_new_player_code_sent_twice_gives_one_code(client, t, personas):
    client.force_login(personas.arbiter)
    player = holders(t)["N"]
    _first, second = twice(client, reverse("arbiter_player_code", args=[t.pk, player.pk]))
    code = player_codes_get(tournament=t)[player.pk]
    page = client.get(second["Location"], **EN).content.decode()
    assert REPLAY_NOTE in page
    shown = re.findall(rf"New code of {re.escape(str(player))}: (\d+)", page)
    assert shown and set(shown) == {code}, (shown, code)


def test_the_table_forms_carry_a_one_time_token(client, t, personas):
    client.force_login(personas.arbiter)
    html = client.get(reverse("arbiter_tables", args=[t.pk]), **EN).content.decode()
    forms = re.findall(r'<form method="post".*?</form>', html, re.S)
    forms = [f for f in forms if "logout" not in f and "/i18n/" not in f]
    assert len(forms) >= 3
    for form in forms:
        assert re.search(rf'name="{FIELD}" value="[0-9a-f]{{32}}"', form), form[:200]


def test_minutes_added_twice_by_a_double_click_are_added_once(client, t, personas):
    client.force_login(personas.arbiter)
    path = reverse("arbiter_clock_action", args=[t.pk, 1, "add"])
    data = {"minutes": "5", FIELD: once_token()}
    first = client.post(path, data, HTTP_HX_REQUEST="true", **EN)
    second = client.post(path, data, HTTP_HX_REQUEST="true", **EN)
    assert Round.objects.get(tournament=t, number=1).clock_extra_seconds == 300
    assert first.status_code == second.status_code == 200
    assert second.content == first.content
    # The panel it answers carries fresh tokens: the next click adds again.
    again = re.search(
        r'action="[^"]*/add/"[^>]*>.*?name="_once" value="([0-9a-f]{32})"',
        first.content.decode(),
        re.S,
    )
    assert again, first.content.decode()[:500]
    client.post(path, {"minutes": "5", FIELD: again.group(1)}, HTTP_HX_REQUEST="true", **EN)
    assert Round.objects.get(tournament=t, number=1).clock_extra_seconds == 600
