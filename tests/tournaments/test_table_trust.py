"""Issue 30, points 1 and 4, as a hostile table-mate would try them.

1. A phone keeps nobody's credential but its owner's: a phone handed over (or bound to someone
   else) never receives its borrower's binding, even when asked for; a binding is valid only
   at the table and in the round where it was made; one phone per player; the arbiter sees
   them per player and revokes them.
4. A table-mate cannot lock a player's code: wrong codes slow down the phone they are typed
   on, never the owner's right code from his own phone nor his bound phone; brute force is
   bounded by a budget of guesses from places the owner never typed his code.
"""

from __future__ import annotations

import re
import secrets

import pytest
from django.urls import reverse
from django.utils import translation

from tests.tournaments.test_table_entry import (
    EN,
    GARDE_N,
    _donnes,
    _url,
    code_of,
    holders,
    table_round,
)
from tests.tournaments.test_table_entry import t as t
from tournaments.models import CodeThrottle, PhoneBinding, PlayerCode, Result
from tournaments.services.results import ResultInvalid
from tournaments.services.table_entry import (
    CODE_GUESS_BUDGET,
    CodeLocked,
    Voucher,
    code_source,
    player_binding_read,
    table_access_issue,
    table_entry_confirm,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


def phone_id() -> str:
    """A random id as a table page draws it once per phone."""
    return secrets.token_hex(16)


def bind(client, access, donne, player, code, phone, **extra):
    """The page's save with the box ticked; returns the answer's JSON."""
    body = GARDE_N | {"player": player.pk, "code": code, "bind": "1", "phone": phone} | extra
    answer = client.post(_url("table_save", access, donne), body, **EN)
    assert answer.status_code == 200, answer.json()
    return answer.json()


def test_a_phone_handed_over_never_holds_the_borrowers_binding(t, client):
    """The issue's attack: East enters one result on North's phone; North then enters and
    confirms in East's name. The phone never gets East's binding, whatever it asks."""
    access = table_access_issue(table_round=table_round(t))
    first, second, third, fourth = _donnes(t)
    seats = holders(t, 1, first)
    north, east = seats["N"], seats["E"]
    north_phone = phone_id()
    mine = bind(client, access, first, north, code_of(t, north), north_phone)["binding"]
    assert mine["player"] == north.pk
    # "Not North? Hand this phone over": East types his code on North's phone. Even if the
    # box were ticked, the phone bound to North does not take East's binding.
    lent = bind(client, access, second, east, code_of(t, east), north_phone)
    assert "binding" not in lent and lent["result"]["entered_by"] == east.pk
    # The raw request of the issue (no phone id): no binding either.
    body = GARDE_N | {"player": east.pk, "code": code_of(t, east), "bind": "1"}
    raw = client.post(_url("table_save", access, third), body, **EN)
    assert raw.status_code == 200 and "binding" not in raw.json()
    assert not PhoneBinding.objects.filter(player=east).exists()
    # North's phone can only speak for North: its token names North, whatever it claims.
    claimed = GARDE_N | {"binding": mine["token"], "player": east.pk}
    saved = client.post(_url("table_save", access, fourth), claimed, **EN).json()["result"]
    assert saved["entered_by"] == north.pk
    # And North still cannot confirm East's entry as East: his own code makes him North.
    proof = {"player": north.pk, "code": code_of(t, north), "version": lent["result"]["version"]}
    assert client.post(_url("table_confirm", access, second), proof, **EN).status_code == 200
    counted = Result.objects.get(donne__number=second, table=access.table_round.table)
    assert counted.entered_by == east and counted.confirmed_by == north  # both truly vouched


def test_one_phone_per_player_a_new_binding_ends_the_last(t, client):
    access = table_access_issue(table_round=table_round(t))
    first, second = _donnes(t)[:2]
    east = holders(t, 1, first)["E"]
    old = bind(client, access, first, east, code_of(t, east), phone_id())["binding"]["token"]
    new = bind(client, access, second, east, code_of(t, east), phone_id())  # his other phone
    assert new["binding"]["player"] == east.pk
    answer = client.post(_url("table_save", access, first), GARDE_N | {"binding": old}, **EN)
    assert answer.status_code == 400 and "no longer bound" in str(answer.json()["errors"])
    ended = PhoneBinding.objects.get(player=east, ended_at__isnull=False)
    assert ended.end_reason == PhoneBinding.End.REPLACED
    assert PhoneBinding.objects.filter(player=east, ended_at=None).count() == 1


def test_a_binding_is_valid_only_at_its_table_and_round(t, client):
    access = table_access_issue(table_round=table_round(t))
    d = _donnes(t)[0]
    north = holders(t, 1, d)["N"]
    token = bind(client, access, d, north, code_of(t, north), phone_id())["binding"]["token"]
    assert player_binding_read(access=access, binding=token) == north
    for elsewhere in (table_round(t, 2), table_round(t, 1, 2)):  # another table; round 2
        with pytest.raises(ResultInvalid):
            player_binding_read(access=table_access_issue(table_round=elsewhere), binding=token)


def test_the_arbiter_sees_each_players_bound_phone_and_revokes_it(t, client, personas):
    from tournaments.once import FIELD

    access = table_access_issue(table_round=table_round(t))
    d = _donnes(t)[0]
    north = holders(t, 1, d)["N"]
    token = bind(client, access, d, north, code_of(t, north), phone_id())["binding"]["token"]
    arbiter = client.__class__()
    arbiter.force_login(personas.arbiter)
    html = arbiter.get(reverse("arbiter_tables", args=[t.pk]), **EN).content.decode()
    row = re.search(rf'<tr data-player="{north.pk}"[^>]*>(.*?)</tr>', html, re.S)
    assert row is not None and "Table 1, round 1, since" in row.group(1)
    form = re.search(
        r'<form method="post" action="([^"]+unbind/)">.*?name="' + FIELD + '" value="([^"]+)"',
        row.group(1),
        re.S,
    )
    assert form is not None
    done = arbiter.post(form.group(1), {FIELD: form.group(2)}, **EN)
    assert done.status_code == 302
    binding = PhoneBinding.objects.get(player=north)
    assert binding.end_reason == PhoneBinding.End.ARBITER and binding.ended_by == personas.arbiter
    answer = client.post(_url("table_save", access, d), GARDE_N | {"binding": token}, **EN)
    assert answer.status_code == 400 and "binding" in answer.json()["errors"]
    html = arbiter.get(reverse("arbiter_tables", args=[t.pk]), **EN).content.decode()
    row = re.search(rf'<tr data-player="{north.pk}"[^>]*>(.*?)</tr>', html, re.S)
    assert row is not None and "unbind/" not in row.group(1)
    assert "Ended at " in row.group(1) and "revoked by the arbiter" in row.group(1)
    # Nobody else may revoke.
    stranger = client.__class__()
    stranger.force_login(personas.stranger)
    url = reverse("arbiter_player_unbind", args=[t.pk, north.pk])
    assert stranger.post(url).status_code == 403


def _confirm(access, d, player, code, source):
    return table_entry_confirm(
        access=access,
        donne_number=d,
        voucher=Voucher(player_id=player.pk, code=code, source=source),
        version=None,
    )


def test_a_table_mate_cannot_lock_the_owners_code(t, client):
    """Five wrong codes typed for East on North's phone lock East's code on that phone only:
    East's right code from his own phone, and his bound phone, still work."""
    access = table_access_issue(table_round=table_round(t))
    first, second = _donnes(t)[:2]
    seats = holders(t, 1, first)
    north, east = seats["N"], seats["E"]
    north_phone, east_phone = phone_id(), phone_id()
    entered = bind(client, access, first, north, code_of(t, north), north_phone)
    good = code_of(t, east)
    wrong = "0000" if good != "0000" else "1111"
    proof = {"player": east.pk, "code": wrong, "phone": north_phone, "version": "1"}
    answers = [client.post(_url("table_confirm", access, first), proof, **EN) for _i in range(6)]
    assert all(a.status_code == 400 for a in answers)
    assert "locked" in str(answers[-1].json()["errors"])
    # The guesser's phone waits, even with the right code (no oracle there).
    right_there = proof | {"code": good}
    still = client.post(_url("table_confirm", access, first), right_there, **EN)
    assert still.status_code == 400 and "locked" in str(still.json()["errors"])
    # East, on his own phone, types his right code: it counts.
    mine = {"player": east.pk, "code": good, "phone": east_phone, "version": "1"}
    confirmed = client.post(_url("table_confirm", access, first), mine, **EN)
    assert confirmed.status_code == 200 and confirmed.json()["result"]["counts"] is True
    assert entered["result"]["entered_by"] == north.pk
    # His bound phone works too, whatever was typed for him elsewhere.
    token = bind(client, access, second, east, good, east_phone)["binding"]["token"]
    for _i in range(6):
        client.post(_url("table_confirm", access, first), proof, **EN)
    correction = GARDE_N | {"binding": token, "version": "1", "points": "51"}
    again = client.post(_url("table_save", access, second), correction, **EN)
    assert again.status_code == 200 and again.json()["result"]["entered_by"] == east.pk


def test_brute_force_from_changing_phones_spends_a_budget_not_the_owners_phone(t):
    """Phones' ids cost nothing to change: wrong codes from places where East never typed his
    code right spend a budget; once spent they are refused without comparing (at most
    CODE_GUESS_BUDGET of the 10,000 codes are tried), while the phone where East typed it
    right keeps working."""
    access = table_access_issue(table_round=table_round(t))
    first = _donnes(t)[0]
    seats = holders(t, 1, first)
    east = seats["E"]
    good = code_of(t, east)
    own = code_source(phone=phone_id(), address="10.0.0.9")
    with pytest.raises(ResultInvalid) as exc:  # nothing to confirm yet, but the code is right
        _confirm(access, first, east, good, own)
    assert "code" not in exc.value.errors  # his phone is now trusted for his code
    tried = 0
    wrongs = iter(f"{n:04d}" for n in range(10_000) if f"{n:04d}" != good)
    while tried < CODE_GUESS_BUDGET:
        source = code_source(phone=phone_id(), address="10.0.0.9")
        for _i in range(4):
            with pytest.raises(ResultInvalid) as exc:
                _confirm(access, first, east, next(wrongs), source)
            assert not isinstance(exc.value, CodeLocked)
            tried += 1
            if tried == CODE_GUESS_BUDGET:
                break
    assert PlayerCode.objects.get(player=east).guesses == CODE_GUESS_BUDGET
    # The budget is spent: a new phone is refused even with the right code, untried.
    stranger = code_source(phone=phone_id(), address="10.0.0.9")
    with pytest.raises(ResultInvalid) as exc:
        _confirm(access, first, east, good, stranger)
    assert "works only on a phone where they typed it" in str(exc.value)
    wrong_before = PlayerCode.objects.get(player=east).wrong_total
    with pytest.raises(ResultInvalid):
        _confirm(access, first, east, "9999" if good != "9999" else "9998", stranger)
    assert PlayerCode.objects.get(player=east).wrong_total == wrong_before  # not compared
    rows = CodeThrottle.objects.filter(player=east).count()
    for _i in range(5):  # new phone ids add nothing once the budget is spent
        with pytest.raises(ResultInvalid):
            _confirm(access, first, east, good, code_source(phone=phone_id(), address="x"))
    assert CodeThrottle.objects.filter(player=east).count() == rows
    # East's own phone still proves him.
    with pytest.raises(ResultInvalid) as exc:
        _confirm(access, first, east, good, own)
    assert "code" not in exc.value.errors
