"""The arbiter's entry page of a cell entered at a table and not counting yet (issue 31.3): it
says it waits for the table's confirmation and offers "Confirmer tel que saisi", which makes
the entry count as it stands through the confirm path (a ledger line), and comes back to the
same page; a cell that counts shows neither."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.tournaments.test_results_service import GARDE_WON
from tests.tournaments.test_table_entry import by_code, first_donne, holders, t, table_round
from tournaments.models import EntryStatus, LedgerEntry, Result
from tournaments.services.table_entry import table_access_issue, table_entry_save

__all__ = ["t"]  # the fixture, imported for its use here

pytestmark = pytest.mark.django_db


def test_a_cell_awaiting_the_table_is_confirmed_as_entered_from_its_entry_page(t, client, personas):
    access = table_access_issue(table_round=table_round(t, 1))
    donne = first_donne(t, 1)
    seats = holders(t, 1, donne)
    table_entry_save(
        access=access,
        donne_number=donne,
        data=GARDE_WON,
        voucher=by_code(t, seats["N"]),
        expected_version=None,
    )
    client.force_login(personas.arbiter)
    page = reverse("arbiter_result", args=[t.pk, 1, donne])
    html = client.get(page, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert 'id="table-entry" data-entry-status="awaiting"' in html
    assert "En attente de la confirmation de la table" in html
    assert f"Saisi à la table par {seats['N']}" in html
    assert "Confirmer tel que saisi" in html
    confirm = reverse("arbiter_entry_confirm", args=[t.pk, 1, donne])
    assert f'action="{confirm}"' in html

    response = client.post(confirm, {"back": "entry"})
    assert response.status_code == 302 and response["Location"] == page
    result = Result.objects.get(table__number=1, donne__number=donne, tournament=t)
    assert result.entry_status == EntryStatus.ARBITER and result.points == 50
    line = LedgerEntry.objects.filter(result=result).order_by("-pk").first()
    assert line.action == LedgerEntry.Action.RESULT_CONFIRMED and line.actor == personas.arbiter

    # It counts now: neither the state nor the button.
    html = client.get(page, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert 'id="table-entry"' not in html and "Confirmer tel que saisi" not in html


def test_from_the_dashboard_the_confirmation_still_goes_back_to_the_dashboard(t, client, personas):
    access = table_access_issue(table_round=table_round(t, 1))
    donne = first_donne(t, 1)
    table_entry_save(
        access=access,
        donne_number=donne,
        data=GARDE_WON,
        voucher=by_code(t, holders(t, 1, donne)["N"]),
        expected_version=None,
    )
    client.force_login(personas.arbiter)
    response = client.post(reverse("arbiter_entry_confirm", args=[t.pk, 1, donne]))
    assert response["Location"].endswith("/arbiter/#at-tables")
