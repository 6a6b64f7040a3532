"""The table page's poll (issue 31.2): ``state.json`` answers with an ETag; asked again with it
in If-None-Match, an unchanged state is a 304 without a body for four queries, whatever
happens at another table; a save at this table (or a status change) changes the tag, and the
new state has no hand in it."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.tournaments.test_results_service import GARDE_WON, cell
from tests.tournaments.test_table_entry import by_code, first_donne, holders, t, table_round
from tournaments.models import Donne
from tournaments.services.results import result_save
from tournaments.services.table_entry import (
    table_access_issue,
    table_entry_confirm,
    table_entry_save,
)

__all__ = ["t"]  # the fixture, imported for its use here

pytestmark = pytest.mark.django_db


def poll(client, secret: str, tag: str | None = None):
    headers = {"HTTP_IF_NONE_MATCH": tag} if tag else {}
    return client.get(reverse("table_state", args=[secret]), **headers)


def test_an_unchanged_state_is_a_304_for_four_queries_and_a_save_changes_it(t, client, personas):
    access = table_access_issue(table_round=table_round(t, 1))
    first = poll(client, access.secret)
    assert first.status_code == 200
    tag = first["ETag"]
    assert tag == f'"{first.json()["version"]}"'

    with CaptureQueriesContext(connection) as unchanged:
        again = poll(client, access.secret, tag)
    assert again.status_code == 304 and again.content == b""
    # The access and its round's start (two), the results' tag, the seats' tag.
    assert len(unchanged) == 4
    with CaptureQueriesContext(connection) as full:
        poll(client, access.secret)
    assert len(full) > len(unchanged)

    # Another table's result changes nothing here (it would tell the table it was played).
    result_save(
        **cell(t, 2, first_donne(t, 2)),
        data=GARDE_WON,
        user=personas.arbiter,
        expected_version=None,
    )
    assert poll(client, access.secret, tag).status_code == 304

    # This table's entry (then its confirmation) changes the tag; the state has no hand.
    donne = first_donne(t, 1)
    seats = holders(t, 1, donne)
    table_entry_save(
        access=access,
        donne_number=donne,
        data=GARDE_WON,
        voucher=by_code(t, seats["N"]),
        expected_version=None,
    )
    changed = poll(client, access.secret, tag)
    assert changed.status_code == 200 and changed["ETag"] != tag
    state = changed.json()
    entry = next(d for d in state["donnes"] if d["number"] == donne)["result"]
    assert entry["entry_status"] == "awaiting"
    for hand in Donne.objects.get(tournament=t, number=donne).hands.values():
        assert hand not in changed.content.decode()
    tag = changed["ETag"]
    assert poll(client, access.secret, tag).status_code == 304
    table_entry_confirm(
        access=access, donne_number=donne, voucher=by_code(t, seats["E"]), version=entry["version"]
    )
    confirmed = poll(client, access.secret, tag)
    assert confirmed.status_code == 200
    entry = next(d for d in confirmed.json()["donnes"] if d["number"] == donne)["result"]
    assert entry["entry_status"] == "confirmed"


def test_a_revoked_page_polls_a_403_not_a_304(t, client):
    access = table_access_issue(table_round=table_round(t, 1))
    tag = poll(client, access.secret)["ETag"]
    access.revoked_at = access.created_at
    access.save(update_fields=["revoked_at"])
    assert poll(client, access.secret, tag).status_code == 403
