"""Entry at the table: secrets and short codes, entry awaiting confirmation, confirmation by
the other camp with a code (throttled), contest, arbiter override, what counts, the ledger,
safe resends, and the table's page over HTTP (403 for another table, no hands)."""

from __future__ import annotations

import datetime
import re
import secrets
from decimal import Decimal

import pytest
from django.db import transaction
from django.urls import reverse
from django.utils import timezone, translation

from tests.tournaments.test_card_checks import deal
from tests.tournaments.test_results_service import GARDE_WON, cell, set_hands
from tournaments.ledger_text import reason_text
from tournaments.models import (
    CodeThrottle,
    Donne,
    EntryStatus,
    LedgerEntry,
    PhoneBinding,
    PlayerCode,
    Result,
    Round,
    TableAccess,
    TableRound,
)
from tournaments.services.preparation import seats_for_donne
from tournaments.services.results import (
    ResultConflict,
    ResultInput,
    ResultInvalid,
    result_save,
    round_open,
)
from tournaments.services.table_entry import (
    SHORT_CODE_LOOKUPS_PER_MINUTE,
    CodeLocked,
    TableAccessDenied,
    Voucher,
    confirmer_problem,
    player_binding_issue,
    player_binding_read,
    player_code_reissue,
    player_codes_get,
    result_confirm_by_arbiter,
    table_access_issue,
    table_access_lookup,
    table_access_reissue,
    table_access_resolve,
    table_entry_confirm,
    table_entry_contest,
    table_entry_save,
    table_page_links,
    table_page_url,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


@pytest.fixture
def t(running_tournament):
    for donne in Donne.objects.filter(tournament=running_tournament):
        set_hands(donne, deal(N=["T21", "EX"]))
    return running_tournament


def table_round(t, table=1, round_=1) -> TableRound:
    return TableRound.objects.select_related("round", "table", "etui_set").get(
        round__tournament=t, round__number=round_, table__number=table
    )


def holders(t, table=1, donne=1):
    tr = table_round(t, table)
    numbers = sorted(d.number for d in Donne.objects.filter(etui_set=tr.etui_set))
    return seats_for_donne(tr, numbers.index(donne)).hands


def first_donne(t, table=1) -> int:
    return min(d.number for d in Donne.objects.filter(etui_set=table_round(t, table).etui_set))


def code_of(t, player) -> str:
    return player_codes_get(tournament=t)[player.pk]


def by_code(t, player) -> Voucher:
    """What a player gives at the table when he types his code."""
    return Voucher(player_id=player.pk, code=code_of(t, player))


def test_a_table_access_has_a_long_secret_a_short_code_and_an_absolute_url(t, settings):
    settings.SITE_URL = "http://192.168.1.20:8000"
    tr = table_round(t)
    access = table_access_issue(table_round=tr)
    assert len(access.secret) >= 43  # 256 random bits, URL-safe base64
    assert len(access.short_code) == 6
    assert table_access_issue(table_round=tr) == access  # one live access per table and round
    url = table_page_url(table_round=tr)
    assert url == f"http://192.168.1.20:8000/table/{access.secret}/"
    links = table_page_links(table_round=tr)
    assert links.short_url == "http://192.168.1.20:8000/table/" and links.code == access.short_code
    assert table_access_issue(table_round=table_round(t, 2)).secret != access.secret


def test_reissue_revokes_the_old_secret_and_a_closed_round_refuses_it(t, personas):
    tr = table_round(t)
    old = table_access_issue(table_round=tr)
    new = table_access_reissue(table_round=tr, user=personas.arbiter)
    assert new.secret != old.secret and new.short_code != old.short_code
    with pytest.raises(TableAccessDenied) as exc:
        table_access_resolve(secret=old.secret)
    assert "replaced" in str(exc.value)
    assert table_access_resolve(secret=new.secret) == new
    Round.objects.filter(pk=tr.round_id).update(state=Round.State.CLOSED)
    with pytest.raises(TableAccessDenied) as exc:
        table_access_resolve(secret=new.secret)
    assert "closed" in str(exc.value)


def fresh_address() -> str:
    """A client address no earlier run counted (the shared cache may be Redis, kept between
    runs)."""
    return ".".join(["10"] + [str(secrets.randbelow(250) + 1) for _i in range(3)])


def test_short_code_lookup_is_rate_limited(t):
    from django.core.exceptions import PermissionDenied

    access = table_access_issue(table_round=table_round(t))
    phone, other = fresh_address(), fresh_address()
    assert table_access_lookup(code=access.short_code.lower(), client=phone) == access
    for _i in range(SHORT_CODE_LOOKUPS_PER_MINUTE - 1):
        table_access_lookup(code="ZZZZZZ", client=phone)
    with pytest.raises(PermissionDenied):
        table_access_lookup(code=access.short_code, client=phone)
    assert table_access_lookup(code=access.short_code, client=other) == access


def test_short_code_lookups_are_counted_for_every_web_process(t):
    """Another process has its own memory: the count lives in the shared cache."""
    from django.core.cache import caches
    from django.core.exceptions import PermissionDenied

    access = table_access_issue(table_round=table_round(t))
    phone = fresh_address()
    for _i in range(SHORT_CODE_LOOKUPS_PER_MINUTE):
        table_access_lookup(code="ZZZZZZ", client=phone)
    caches["default"].clear()  # what a second process starts with
    with pytest.raises(PermissionDenied):
        table_access_lookup(code=access.short_code, client=phone)


def test_short_codes_typed_behind_a_proxy_count_per_phone(t, client, settings):
    """With a trusted proxy, each phone is the address the proxy saw, not the proxy (a room
    behind one would share one budget); without one, a forged X-Forwarded-For changes
    nothing."""
    access = table_access_issue(table_round=table_round(t))
    proxy = fresh_address()

    def typed(code: str, phone: str) -> int:
        return client.post(
            reverse("table_code"),
            {"code": code},
            REMOTE_ADDR=proxy,
            HTTP_X_FORWARDED_FOR=phone,
        ).status_code

    settings.TRUSTED_PROXIES = 1
    greedy = fresh_address()
    assert {typed("ZZZZZ9", greedy) for _i in range(SHORT_CODE_LOOKUPS_PER_MINUTE)} == {400}
    assert typed(access.short_code, greedy) == 429
    assert typed(access.short_code, fresh_address()) == 302  # the next phone still gets in
    settings.TRUSTED_PROXIES = 0
    assert typed(access.short_code, fresh_address()) == 302  # counted as the proxy itself
    for _i in range(SHORT_CODE_LOOKUPS_PER_MINUTE):
        typed("ZZZZZ9", fresh_address())
    assert typed(access.short_code, fresh_address()) == 429


def _enter(t, access, donne, by, data=GARDE_WON, version=None):
    result, _player = table_entry_save(
        access=access,
        donne_number=donne,
        data=data,
        voucher=by_code(t, by),
        expected_version=version,
    )
    return result


def test_a_table_entry_awaits_an_opponent_and_counts_only_once_confirmed(t):
    access = table_access_issue(table_round=table_round(t))
    d = first_donne(t)
    seats = holders(t, 1, d)
    before = t.__class__.objects.get(pk=t.pk).results_version
    result = _enter(t, access, d, seats["N"])  # North took and enters his garde
    assert result.entry_status == EntryStatus.AWAITING
    assert result.entered_by == seats["N"] and result.table_access == access
    assert not Result.objects.counted().filter(pk=result.pk).exists()
    codes = player_codes_get(tournament=t)
    assert len(codes) == 8 and all(len(c) == 4 and c.isdigit() for c in codes.values())

    # A partner of the same camp cannot confirm: only the defence (E, S, W) can.
    with pytest.raises(ResultInvalid) as exc:
        table_entry_confirm(
            access=access,
            donne_number=d,
            voucher=Voucher(player_id=seats["N"].pk, code=codes[seats["N"].pk]),
            version=result.version,
        )
    assert "opponent" in str(exc.value)
    confirmed = table_entry_confirm(
        access=access,
        donne_number=d,
        voucher=Voucher(player_id=seats["E"].pk, code=codes[seats["E"].pk]),
        version=result.version,
    )
    assert confirmed.entry_status == EntryStatus.CONFIRMED and confirmed.confirmed_by == seats["E"]
    assert Result.objects.counted().filter(pk=result.pk).exists()
    assert t.__class__.objects.get(pk=t.pk).results_version == before + 2
    actions = list(
        LedgerEntry.objects.filter(result=result)
        .order_by("pk")
        .values_list("action", "by_player_id", "table_access_id")
    )
    assert actions == [
        ("result_created", seats["N"].pk, access.pk),
        ("result_confirmed", seats["E"].pk, access.pk),
    ]
    # Once it counts, the table cannot change it any more: a conflict, never an overwrite.
    with pytest.raises(ResultConflict):
        _enter(t, access, d, seats["E"], ResultInput(status="all_passed"), confirmed.version)
    assert Result.objects.get(pk=result.pk).contract == "garde"


def test_confirmer_rule():
    holders_ = {"N": 1, "E": 2, "S": 3, "W": 4}
    rule = confirmer_problem
    assert rule(holders=holders_, taker="N", all_passed=False, entered_by=1, confirmer=2) is None
    assert rule(holders=holders_, taker="N", all_passed=False, entered_by=2, confirmer=3) == (
        "same_camp"
    )
    assert rule(holders=holders_, taker="N", all_passed=False, entered_by=2, confirmer=1) is None
    assert rule(holders=holders_, taker="", all_passed=True, entered_by=2, confirmer=3) is None
    assert rule(holders=holders_, taker="", all_passed=True, entered_by=2, confirmer=2) == (
        "same_player"
    )
    assert rule(holders=holders_, taker="N", all_passed=False, entered_by=1, confirmer=9) == (
        "not_holder"
    )


def test_five_wrong_codes_lock_the_code_for_a_minute(t):
    access = table_access_issue(table_round=table_round(t))
    d = first_donne(t)
    seats = holders(t, 1, d)
    result = _enter(t, access, d, seats["N"])
    good = player_codes_get(tournament=t)[seats["E"].pk]
    wrong = "0000" if good != "0000" else "1111"
    for _i in range(4):
        with pytest.raises(ResultInvalid) as exc:
            table_entry_confirm(
                access=access,
                donne_number=d,
                voucher=Voucher(player_id=seats["E"].pk, code=wrong),
                version=None,
            )
        assert not isinstance(exc.value, CodeLocked)
    with pytest.raises(CodeLocked):
        table_entry_confirm(
            access=access,
            donne_number=d,
            voucher=Voucher(player_id=seats["E"].pk, code=wrong),
            version=None,
        )
    with pytest.raises(CodeLocked):  # even the right code waits
        table_entry_confirm(
            access=access,
            donne_number=d,
            voucher=Voucher(player_id=seats["E"].pk, code=good),
            version=None,
        )
    locked_until = CodeThrottle.objects.get(player=seats["E"]).locked_until
    assert locked_until > timezone.now() + datetime.timedelta(seconds=50)  # a minute
    assert locked_until <= timezone.now() + datetime.timedelta(seconds=60)
    assert Result.objects.get(pk=result.pk).entry_status == EntryStatus.AWAITING
    CodeThrottle.objects.filter(player=seats["E"]).update(
        locked_until=timezone.now() - datetime.timedelta(seconds=1)
    )
    table_entry_confirm(
        access=access,
        donne_number=d,
        voucher=Voucher(player_id=seats["E"].pk, code=good),
        version=None,
    )
    assert Result.objects.get(pk=result.pk).entry_status == EntryStatus.CONFIRMED


@pytest.mark.django_db(transaction=True)
def test_wrong_codes_sent_at_once_get_no_more_than_five_tries(t):
    """Twelve phones (or one script) send wrong codes for the same player at the same time:
    each attempt takes a try before its code is compared, so at most five are compared."""
    import threading

    from django.db import connection

    from tournaments.services.table_entry import CODE_MAX_FAILURES

    access = table_access_issue(table_round=table_round(t))
    d = first_donne(t)
    seats = holders(t, 1, d)
    _enter(t, access, d, seats["N"])
    good = player_codes_get(tournament=t)[seats["E"].pk]
    wrong = "0000" if good != "0000" else "1111"
    start = threading.Barrier(12)
    answers: list[str] = []

    def attempt() -> None:
        try:
            start.wait()
            table_entry_confirm(
                access=access,
                donne_number=d,
                voucher=Voucher(player_id=seats["E"].pk, code=wrong),
                version=None,
            )
            answers.append("accepted")
        except CodeLocked:
            answers.append("locked")
        except ResultInvalid:
            answers.append("wrong")
        finally:
            connection.close()

    threads = [threading.Thread(target=attempt) for _i in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(answers) == 12 and "accepted" not in answers
    assert answers.count("wrong") <= CODE_MAX_FAILURES - 1  # the fifth wrong one locks
    with pytest.raises(CodeLocked):
        table_entry_confirm(
            access=access,
            donne_number=d,
            voucher=Voucher(player_id=seats["E"].pk, code=good),
            version=None,
        )


def test_a_half_point_makes_the_entry_need_the_arbiter_who_confirms_it(t, personas):
    access = table_access_issue(table_round=table_round(t))
    d = first_donne(t)
    seats = holders(t, 1, d)
    # A half point at four players comes from what was typed: the table is told, and the
    # entry waits for the arbiter.
    half = ResultInput(
        status="played", taker="E", contract="garde", bouts=1, points=Decimal("50.5")
    )
    result = _enter(t, access, d, seats["E"], half)
    assert result.entry_status == EntryStatus.NEEDS_ARBITER
    with pytest.raises(ResultInvalid) as exc:
        table_entry_confirm(
            access=access, donne_number=d, voucher=by_code(t, seats["N"]), version=None
        )
    assert "arbiter" in str(exc.value)
    done = result_confirm_by_arbiter(result=result, user=personas.arbiter)
    assert done.entry_status == EntryStatus.ARBITER and done.confirmed_warnings == ["half_point"]


def test_contest_flags_for_the_arbiter_whose_save_overrides(t, personas):
    access = table_access_issue(table_round=table_round(t))
    d = first_donne(t)
    seats = holders(t, 1, d)
    result = _enter(t, access, d, seats["N"])
    with pytest.raises(ResultInvalid):
        table_entry_contest(
            access=access, donne_number=d, voucher=by_code(t, seats["E"]), note=" ", version=None
        )
    contested = table_entry_contest(
        access=access,
        donne_number=d,
        voucher=by_code(t, seats["E"]),
        note="Prise, pas garde",
        version=None,
    )
    assert contested.entry_status == EntryStatus.CONTESTED
    assert contested.contest_note == "Prise, pas garde"
    fixed = result_save(
        **cell(t, 1, d),
        data=ResultInput(status="played", taker="N", contract="prise", bouts=2, points=Decimal(50)),
        user=personas.arbiter,
        expected_version=contested.version,
        reason="Contested at the table: it was a prise",
    )
    assert fixed.entry_status == EntryStatus.ARBITER and fixed.contract == "prise"
    assert Result.objects.counted().filter(pk=result.pk).exists()


def test_the_table_corrects_its_entry_while_it_awaits(t):
    access = table_access_issue(table_round=table_round(t))
    d = first_donne(t)
    seats = holders(t, 1, d)
    result = _enter(t, access, d, seats["N"])
    with pytest.raises(ResultConflict):  # the page thought there was none: shown, not saved
        _enter(t, access, d, seats["N"], ResultInput(status="all_passed"))
    corrected = _enter(
        t, access, d, seats["E"], ResultInput(status="all_passed"), version=result.version
    )
    assert corrected.status == "all_passed" and corrected.entry_status == EntryStatus.AWAITING
    assert corrected.entered_by == seats["E"]


def test_player_code_reissue_changes_the_code(t, personas):
    player = holders(t)["N"]
    old = player_codes_get(tournament=t)[player.pk]
    for _i in range(5):
        new = player_code_reissue(tournament=t, player=player, user=personas.arbiter)
        if new != old:
            break
    assert player_codes_get(tournament=t)[player.pk] == new != old


def test_awaiting_results_stay_out_of_the_ranking_and_of_complete_donnes(t, personas):
    from scoring.rankings.selectors import complete_donnes

    access = table_access_issue(table_round=table_round(t, 1))
    d = first_donne(t, 1)
    # Table 2 plays the same donne in round 2; the arbiter opens it and enters it.
    round_open(round_=Round.objects.get(tournament=t, number=2), user=personas.arbiter)
    other = TableRound.objects.get(
        round__tournament=t, etui_set=table_round(t, 1).etui_set, table__number=2
    )
    result_save(
        tournament=t,
        table=other.table,
        donne=Donne.objects.get(tournament=t, number=d),
        data=GARDE_WON,
        user=personas.arbiter,
        expected_version=None,
    )
    _enter(t, access, d, holders(t, 1, d)["N"])
    donne = Donne.objects.get(tournament=t, number=d)
    assert donne.pk not in complete_donnes(t)
    result_confirm_by_arbiter(
        result=Result.objects.get(table__number=1, donne=donne), user=personas.arbiter
    )
    assert donne.pk in complete_donnes(t)


# --- over HTTP ------------------------------------------------------------------------------


def test_table_one_secret_cannot_write_table_two_nor_read_hands(t, client, personas):
    access = table_access_issue(table_round=table_round(t, 1))
    # Table 2 plays table 1's donnes in round 2: its result is another table's traveller line.
    d = first_donne(t, 1)
    round_open(round_=Round.objects.get(tournament=t, number=2), user=personas.arbiter)
    result_save(**cell(t, 2, d), data=GARDE_WON, user=personas.arbiter, expected_version=None)
    page = client.get(reverse("table_page", args=[access.secret]))
    assert page.status_code == 200
    text = page.content.decode()
    donne = Donne.objects.get(tournament=t, number=first_donne(t, 1))
    for hand in donne.hands.values():
        assert hand not in text
    state = client.get(reverse("table_state", args=[access.secret])).json()
    assert "hand" not in str(state).lower() and donne.chien not in str(state)
    assert [d["number"] for d in state["donnes"]] == sorted(
        d.number for d in Donne.objects.filter(etui_set=table_round(t, 1).etui_set)
    )
    assert [d["result"] for d in state["donnes"]] == [None] * 4  # table 1 entered nothing
    assert "+204" not in text  # table 2's garde is not shown
    theirs = first_donne(t, 2)
    seats = holders(t, 1, first_donne(t, 1))
    body = {
        "contract": "garde",
        "taker": "N",
        "bouts": "2",
        "points": "50",
        "player": seats["N"].pk,
    }
    answer = client.post(reverse("table_save", args=[access.secret, theirs]), body)
    assert answer.status_code == 403
    for action in ("table_preview", "table_confirm", "table_contest"):
        assert client.post(reverse(action, args=[access.secret, theirs]), body).status_code == 403
    assert list(Result.objects.values_list("table__number", flat=True)) == [2]


def test_a_closed_round_or_an_unknown_secret_refuses_the_page(t, client):
    access = table_access_issue(table_round=table_round(t, 1))
    assert client.get(reverse("table_page", args=["x" * 43])).status_code == 403
    Round.objects.filter(pk=access.table_round.round_id).update(state=Round.State.CLOSED)
    assert client.get(reverse("table_page", args=[access.secret])).status_code == 403
    body = {"contract": "all_passed", "player": holders(t)["N"].pk}
    answer = client.post(reverse("table_save", args=[access.secret, first_donne(t)]), body)
    assert answer.status_code == 403


def test_a_resend_with_the_same_idempotency_key_saves_once(t, client):
    access = table_access_issue(table_round=table_round(t, 1))
    d = first_donne(t)
    body = {
        "contract": "garde",
        "taker": "N",
        "bouts": "2",
        "points": "50",
        "player": holders(t)["N"].pk,
        "code": code_of(t, holders(t)["N"]),
    }
    url = reverse("table_save", args=[access.secret, d])
    first = client.post(url, body, headers={"Idempotency-Key": "k-1"})
    again = client.post(url, body, headers={"Idempotency-Key": "k-1"})
    assert first.status_code == again.status_code == 200
    assert again["Idempotent-Replayed"] == "true"
    assert first.json() == again.json()
    assert Result.objects.count() == 1 and LedgerEntry.objects.count() == 1
    other = client.post(url, body, headers={"Idempotency-Key": "k-2"})
    assert other.status_code == 409  # a new entry while one awaits: a conflict, shown
    assert Result.objects.get().version == 1


def test_short_address_redirects_to_the_table_page(t, client):
    access = table_access_issue(table_round=table_round(t, 1))
    phone = fresh_address()
    answer = client.post(
        reverse("table_code"), {"code": access.short_code.lower()}, REMOTE_ADDR=phone
    )
    assert answer.status_code == 302 and answer["Location"].endswith(f"/table/{access.secret}/")
    assert client.get(f"/table/{access.short_code}/", REMOTE_ADDR=phone).status_code == 302
    assert client.post(
        reverse("table_code"), {"code": "ZZZZZ9"}, REMOTE_ADDR=phone
    ).status_code == (400)


def test_service_worker_and_manifest_are_served_under_table(t, client):
    access = table_access_issue(table_round=table_round(t, 1))
    sw = client.get(reverse("table_sw"))
    assert sw.status_code == 200 and sw["Content-Type"].startswith("text/javascript")
    assert b"table.js" in sw.content
    assert re.search(rb'var CACHE = "tarot-table-[0-9a-f]{12}"', sw.content)
    manifest = client.get(reverse("table_manifest", args=[access.secret])).json()
    assert manifest["start_url"] == f"/table/{access.secret}/" and manifest["scope"] == "/table/"
    assert TableAccess.objects.count() == 1


# --- the arbiter's view -----------------------------------------------------------------------


def test_dashboard_shows_each_cell_status_counts_the_needs_and_filters(t, personas, client):
    from tournaments.services.dashboard import dashboard_build

    access = table_access_issue(table_round=table_round(t, 1))
    first, second, third = sorted(
        d.number for d in Donne.objects.filter(etui_set=table_round(t, 1).etui_set)
    )[:3]
    _enter(t, access, first, holders(t, 1, first)["N"])
    _enter(t, access, second, holders(t, 1, second)["N"])
    table_entry_contest(
        access=access,
        donne_number=second,
        voucher=by_code(t, holders(t, 1, second)["E"]),
        note="Pas 50 points",
        version=None,
    )
    result_save(**cell(t, 1, third), data=GARDE_WON, user=personas.arbiter, expected_version=None)
    board = dashboard_build(tournament=t)
    assert board.cell(1, first).state == "awaiting"
    assert board.cell(1, second).state == "contested"
    assert board.cell(1, second).contest_note == "Pas 50 points"
    assert (
        board.cell(1, third).state == "entered" and board.cell(1, third).entry_status == "arbiter"
    )
    assert [c.key for c in board.needs_him] == [(1, second)]
    assert board.rounds[0].done == 1  # only the arbiter's result counts

    client.force_login(personas.arbiter)
    page = client.get(reverse("arbiter_dashboard", args=[t.pk]))
    html = page.content.decode()
    assert f'data-cell="1-{first}" data-state="awaiting"' in html
    assert "Pas 50 points" in html and 'id="needs-list"' in html
    only = client.get(reverse("arbiter_dashboard", args=[t.pk]) + "?show=needs").content.decode()
    assert f'data-cell="1-{first}"' in only
    assert 'data-cell="2-' not in only.split('id="round-1"')[1].split("</section>")[0]

    answer = client.post(reverse("arbiter_entry_confirm", args=[t.pk, 1, second]))
    assert answer.status_code == 302
    assert Result.objects.get(table__number=1, donne__number=second).entry_status == "arbiter"
    assert dashboard_build(tournament=t).needs_him == []
    assert 'id="awaiting-list"' in html
    client.post(reverse("arbiter_entry_confirm", args=[t.pk, 1, first]))
    assert dashboard_build(tournament=t).awaiting == []


def test_dashboard_lists_results_unlike_the_others(t, personas, client):
    from tournaments.services.dashboard import dashboard_build

    d = first_donne(t, 1)
    result_save(**cell(t, 1, d), data=GARDE_WON, user=personas.arbiter, expected_version=None)
    lost = ResultInput(status="played", taker="N", contract="garde", bouts=2, points=Decimal(30))
    round_open(round_=Round.objects.get(tournament=t, number=2), user=personas.arbiter)
    result_save(**cell(t, 2, d), data=lost, user=personas.arbiter, expected_version=None)
    board = dashboard_build(tournament=t)
    assert {c.key for c in board.unusual} == {(1, d), (2, d)}  # two tables, opposite signs
    assert board.cell(1, d).unusual.reason == "opposite_sign"
    client.force_login(personas.arbiter)
    html = client.get(reverse("arbiter_dashboard", args=[t.pk])).content.decode()
    assert 'id="unusual-list"' in html


def test_arbiter_reissues_and_revokes_pages_and_codes(t, personas, client):
    client.force_login(personas.arbiter)
    tr = table_round(t, 1)
    page = client.get(reverse("arbiter_tables", args=[t.pk]))
    assert page.status_code == 200
    access = TableAccess.objects.get(table_round=tr, revoked_at=None)
    assert access.short_code in page.content.decode()
    client.post(reverse("arbiter_table_reissue", args=[t.pk, tr.pk]))
    new = TableAccess.objects.get(table_round=tr, revoked_at=None)
    assert new.secret != access.secret
    assert client.get(reverse("table_page", args=[access.secret])).status_code == 403
    client.post(reverse("arbiter_table_revoke", args=[t.pk, tr.pk]))
    assert not TableAccess.objects.filter(table_round=tr, revoked_at=None).exists()
    assert client.get(reverse("table_page", args=[new.secret])).status_code == 403
    player = holders(t)["N"]
    old = player_codes_get(tournament=t)[player.pk]
    codes = {old}
    for _i in range(4):
        client.post(reverse("arbiter_player_code", args=[t.pk, player.pk]))
        codes.add(player_codes_get(tournament=t)[player.pk])
    assert len(codes) > 1


def test_strangers_cannot_manage_table_pages(t, personas, client):
    tr = table_round(t, 1)
    client.force_login(personas.other_arbiter)
    assert client.get(reverse("arbiter_tables", args=[t.pk])).status_code == 403
    assert client.post(reverse("arbiter_table_reissue", args=[t.pk, tr.pk])).status_code == 403
    assert not TableAccess.objects.exists()


def test_route_cards_can_read_every_players_code(t):
    from tournaments.selectors import player_codes

    codes = player_codes(t)
    assert codes == player_codes(t)  # drawn once, then stable
    assert set(codes) == set(t.registrations.values_list("player_id", flat=True))


def test_the_ledger_says_who_entered_and_confirmed_at_which_table_page(t, personas, client):
    access = table_access_issue(table_round=table_round(t))
    d = first_donne(t)
    seats = holders(t, 1, d)
    _enter(t, access, d, seats["N"])
    table_entry_confirm(
        access=access,
        donne_number=d,
        voucher=Voucher(
            player_id=seats["W"].pk, code=player_codes_get(tournament=t)[seats["W"].pk]
        ),
        version=None,
    )
    client.force_login(personas.arbiter)
    html = client.get(reverse("arbiter_ledger", args=[t.pk])).content.decode()
    assert f"{seats['N']}, à la table (page {access.short_code})" in html
    assert f"{seats['W']}, à la table (page {access.short_code})" in html
    entry = client.get(reverse("arbiter_result", args=[t.pk, 1, d])).content.decode()
    assert f"{seats['W']}, à la table (page {access.short_code})" in entry


# --- who vouches, what the table's page says of the cards, table cards, rounds not started ----


EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


def _names(t, table=1, round_=1) -> list[str]:
    return [str(s.player) for s in table_round(t, table, round_).seats.select_related("player")]


def _reveals(text: str, names: list[str]) -> list[str]:
    """What in ``text`` would tell where a card is: a card, a position, a player, a count."""
    words = ["21", "Excuse", "Petit", "North", "East", "South", "West", "trumps", "chien"]
    return [w for w in [*words, *names] if w in text]


def reason_en(entry) -> str:
    """The ledger line's reason as an English reader reads it."""
    with translation.override("en"):
        return reason_text(entry)


def _url(name, access, donne) -> str:
    return reverse(name, args=[access.secret, donne])


def _donnes(t, table=1) -> list[int]:
    return sorted(d.number for d in Donne.objects.filter(etui_set=table_round(t, table).etui_set))


GARDE_N = {"contract": "garde", "taker": "N", "bouts": "2", "points": "50"}
# The random ids two phones' table pages keep.
PHONE_N, PHONE_E = "n" * 16 + secrets.token_hex(8), "e" * 16 + secrets.token_hex(8)


def test_nobody_enters_or_confirms_in_another_players_name(t, client):
    access = table_access_issue(table_round=table_round(t))
    first, second = _donnes(t)[:2]
    seats = holders(t, 1, first)
    north, east = seats["N"], seats["E"]
    save, confirm = _url("table_save", access, first), _url("table_confirm", access, first)
    # North says he is East: without East's code nothing is saved.
    assert client.post(save, GARDE_N | {"player": east.pk}).status_code == 400
    wrong = client.post(save, GARDE_N | {"player": east.pk, "code": code_of(t, north)})
    assert wrong.status_code == 400 and "code" in wrong.json()["errors"]
    assert not Result.objects.exists()
    # From North's bound phone a claimed name is not believed: the entry is North's.
    token = player_binding_issue(access=access, player=north, phone=PHONE_N)
    saved = client.post(save, GARDE_N | {"player": east.pk, "binding": token})
    assert saved.status_code == 200 and saved.json()["result"]["entered_by"] == north.pk
    version = saved.json()["result"]["version"]
    # North cannot make it count alone: not with his phone, his code, nor East's name.
    for proof in (
        {"binding": token, "player": east.pk},
        {"player": north.pk, "code": code_of(t, north)},
        {"player": east.pk, "code": code_of(t, north)},
    ):
        answer = client.post(confirm, proof | {"version": version})
        assert answer.status_code == 400, answer.json()
    # All passed: the same.
    passed = {"contract": "all_passed", "binding": token}
    assert client.post(_url("table_save", access, second), passed).status_code == 200
    again = client.post(
        _url("table_confirm", access, second), {"binding": token, "version": 1}, **EN
    )
    assert again.status_code == 400 and "opponent" in str(again.json())
    assert not Result.objects.counted().exists()
    assert set(Result.objects.values_list("entered_by", flat=True)) == {north.pk}


def test_a_phone_bound_to_north_confirmed_by_east_code_counts(t, client):
    access = table_access_issue(table_round=table_round(t))
    first, second = _donnes(t)[:2]
    north, east = holders(t, 1, second)["N"], holders(t, 1, second)["E"]
    assert holders(t, 1, first)["N"] == north
    # North types his code once and keeps the phone: the answer carries the binding.
    body = GARDE_N | {"player": north.pk, "code": code_of(t, north), "bind": "1", "phone": PHONE_N}
    bound = client.post(_url("table_save", access, first), body, **EN).json()["binding"]
    assert bound["player"] == north.pk and bound["name"] == str(north)
    assert bound["tournament"] == t.pk
    # The next donne: no name, no code, the phone says who.
    saved = client.post(
        _url("table_save", access, second), GARDE_N | {"binding": bound["token"]}, **EN
    )
    assert saved.status_code == 200 and "binding" not in saved.json()
    result = saved.json()["result"]
    assert result["entered_by"] == north.pk and result["counts"] is False
    proof = {"player": east.pk, "code": code_of(t, east), "version": result["version"]}
    confirmed = client.post(_url("table_confirm", access, second), proof, **EN).json()["result"]
    assert confirmed["counts"] is True and confirmed["confirmed_by"] == east.pk
    # The ledger says truthfully who entered and who confirmed, how, and from which page.
    rows = [
        (e.action, e.by_player_id, e.table_access_id, reason_en(e))
        for e in LedgerEntry.objects.filter(result__donne__number=second).order_by("pk")
    ]
    assert rows == [
        (
            LedgerEntry.Action.RESULT_CREATED,
            north.pk,
            access.pk,
            f"Entered at the table by {north} (phone bound to them)",
        ),
        (
            LedgerEntry.Action.RESULT_CONFIRMED,
            east.pk,
            access.pk,
            f"Confirmed at the table by {east} (personal code)",
        ),
    ]
    first_rows = LedgerEntry.objects.filter(result__donne__number=first).order_by("pk")
    assert reason_en(first_rows.get()) == f"Entered at the table by {north} (personal code)"
    # A real correction, and only that, is a correction.
    correction = GARDE_N | {"points": "51", "binding": bound["token"], "version": 1}
    assert client.post(_url("table_save", access, first), correction, **EN).status_code == 200
    last = LedgerEntry.objects.filter(result__donne__number=first).order_by("pk").last()
    assert last.action == LedgerEntry.Action.RESULT_CHANGED
    assert reason_en(last) == f"Corrected at the table by {north} (phone bound to them)"
    # The software's reason is a code, put in words in the reader's language.
    assert (last.reason, last.reason_code) == ("", "table_entry")
    assert (first_rows.first().reason, first_rows.first().reason_code) == ("", "table_entry")


def test_a_phone_binding_is_valid_at_its_table_and_round_until_ended(t, client, personas):
    access = table_access_issue(table_round=table_round(t))
    d = first_donne(t)
    north = holders(t, 1, d)["N"]
    token = player_binding_issue(access=access, player=north, phone=PHONE_N)
    assert token and player_binding_read(access=access, binding=token) == north
    tampered = token[:-1] + ("A" if token[-1] != "A" else "B")
    for bad in (tampered, "not-a-token"):
        answer = client.post(_url("table_save", access, d), GARDE_N | {"binding": bad})
        assert answer.status_code == 400 and "binding" in answer.json()["errors"], bad
    # Only the digests are stored: neither the token nor the phone's id.
    row = PhoneBinding.objects.get()
    assert token not in (row.token_digest, row.phone_digest) and row.phone_digest != PHONE_N
    assert (row.table_round_id, row.table_access_id) == (access.table_round_id, access.pk)
    # At another table, or in the next round (North moves): not valid.
    for tr in (table_round(t, 2), table_round(t, 1, 2)):
        elsewhere = table_access_issue(table_round=tr)
        with pytest.raises(ResultInvalid) as exc:
            player_binding_read(access=elsewhere, binding=token)
        assert "binding" in exc.value.errors
    assert not Result.objects.exists()
    # The arbiter gives North a new code (his route card was seen): the phone is unbound.
    old = code_of(t, north)
    while code_of(t, north) == old:
        player_code_reissue(tournament=t, player=north, user=personas.arbiter)
    answer = client.post(_url("table_save", access, d), GARDE_N | {"binding": token}, **EN)
    assert answer.status_code == 400 and "no longer bound" in str(answer.json()["errors"])
    assert PhoneBinding.objects.get().end_reason == PhoneBinding.End.NEW_CODE


def test_the_four_previews_with_each_taker_and_no_bout_answer_alike(t, client):
    access = table_access_issue(table_round=table_round(t))
    d = first_donne(t)
    answers = {}
    for taker in ("N", "E", "S", "W"):  # North holds the 21 and the Excuse
        body = {"contract": "garde", "taker": taker, "bouts": "0", "points": "40"}
        answers[taker] = client.post(_url("table_preview", access, d), body, **EN).json()
    for taker, answer in answers.items():
        assert answer.keys() == answers["N"].keys()
        assert (answer["errors"], answer["warnings"], answer["missing"]) == ({}, {}, []), taker
        assert answer["scores"][taker] == answers["N"]["scores"]["N"]
        assert sorted(answer["scores"].values()) == sorted(answers["N"]["scores"].values())
    # The arbiter's form still answers from the cards.
    from tournaments.services.results import result_preview

    arbiter = result_preview(
        **cell(t, 1, d),
        data=ResultInput(status="played", taker="N", contract="garde", bouts=0, points=40),
    )
    assert arbiter.warnings


def test_a_save_against_the_cards_answers_at_the_table_like_any_other(t, client, personas):
    from tournaments.services.dashboard import dashboard_build

    access = table_access_issue(table_round=table_round(t))
    against_bouts, consistent, against_poignee = _donnes(t)[:3]
    base = {"contract": "garde", "bouts": "0", "points": "40"}
    entries = {  # donne: (what is typed, who enters it, who confirms it)
        against_bouts: (base | {"taker": "N"}, "N", "E"),  # North holds the 21
        consistent: (base | {"taker": "E"}, "E", "N"),
        against_poignee: (base | {"taker": "E", "poignee_E": "simple"}, "E", "N"),  # no trump
    }
    answers = {}
    for d, (body, enters, _confirms) in entries.items():
        who = holders(t, 1, d)[enters]
        proof = {"player": who.pk, "code": code_of(t, who)}
        answers[d] = client.post(_url("table_save", access, d), body | proof, **EN)
    assert {a.status_code for a in answers.values()} == {200}
    saved = {d: a.json() for d, a in answers.items()}
    keys = {(tuple(s), tuple(s["result"])) for s in saved.values()}
    assert len(keys) == 1
    for name in ("entry_status", "entry_label", "counts", "contest_note", "confirmed_by"):
        assert len({str(s["result"][name]) for s in saved.values()}) == 1, name
    assert saved[consistent]["result"]["entry_status"] == EntryStatus.AWAITING
    state = client.get(reverse("table_state", args=[access.secret])).content.decode()
    assert "card_flags" not in state and "trump" not in state
    # Confirmed at the table like any other: they count, and the table sees them as entered.
    for d, (_body, _enters, confirms) in entries.items():
        who = holders(t, 1, d)[confirms]
        proof = {"player": who.pk, "code": code_of(t, who), "version": 1}
        answer = client.post(_url("table_confirm", access, d), proof).json()
        assert (
            answer["result"]["counts"] is True and answer["result"]["entry_status"] == "confirmed"
        )
    # The arbiter's dashboard tells them apart, with the reason.
    flags = dict(Result.objects.values_list("donne__number", "card_flags"))
    assert flags[consistent] == []
    assert {f["code"] for f in flags[against_poignee]} == {"refused:poignees.E"}
    assert flags[against_bouts] and all(f["message"] for f in flags[against_bouts])
    board = dashboard_build(tournament=t)
    assert {c.key for c in board.against_cards} == {(1, against_bouts), (1, against_poignee)}
    client.force_login(personas.arbiter)
    html = client.get(reverse("arbiter_dashboard", args=[t.pk]), **EN).content.decode()
    listed = html.split('id="against-cards-list"')[1].split("</ul>")[0]
    assert "cannot show a simple poignée" in listed
    assert f'data-cell="1-{consistent}"' not in listed
    # He settles one: confirmed as entered, it leaves the list; its reasons are kept.
    client.post(reverse("arbiter_entry_confirm", args=[t.pk, 1, against_poignee]))
    settled = Result.objects.get(donne__number=against_poignee, table__number=1)
    assert settled.entry_status == EntryStatus.ARBITER
    assert "refused:poignees.E" in settled.confirmed_warnings
    assert {c.key for c in dashboard_build(tournament=t).against_cards} == {(1, against_bouts)}


def test_a_revoked_table_card_opens_nothing_until_a_new_card_is_issued(t, client, personas):
    from urllib.parse import urlsplit

    from tournaments.services.table_entry import table_card_url

    tr = table_round(t)
    Round.objects.filter(pk=tr.round_id).update(state=Round.State.OPEN)
    old_card = urlsplit(table_card_url(table=tr.table)).path
    opened = client.get(old_card)
    access = TableAccess.objects.get(table_round=tr, revoked_at=None)
    assert opened.status_code == 302 and opened["Location"].endswith(f"/{access.secret}/")
    client.force_login(personas.arbiter)
    client.post(reverse("arbiter_table_revoke", args=[t.pk, tr.pk]))
    page = client.get(reverse("arbiter_tables", args=[t.pk]), **EN).content.decode()
    assert 'id="card-rule"' in page and "data-card-revoked" in page
    client.logout()
    refused = client.get(old_card, **EN)
    assert refused.status_code == 403 and "revoked" in refused.content.decode()
    assert not TableAccess.objects.filter(table_round=tr, revoked_at=None).exists()  # none issued
    save = client.post(_url("table_save", access, first_donne(t)), GARDE_N)
    assert save.status_code == 403 and not Result.objects.exists()
    # A new page comes with a new card to print; the old card stays dead.
    client.force_login(personas.arbiter)
    client.post(reverse("arbiter_table_reissue", args=[t.pk, tr.pk]))
    client.logout()
    new = TableAccess.objects.get(table_round=tr, revoked_at=None)
    replaced = client.get(old_card, **EN)
    assert replaced.status_code == 403 and "replaced" in replaced.content.decode()
    new_card = urlsplit(table_card_url(table=tr.table)).path
    assert new_card != old_card
    assert client.get(new_card)["Location"].endswith(f"/{new.secret}/")


def test_a_score_sheet_of_a_round_not_started_refuses_entries(t, client, personas):
    later = table_access_issue(table_round=table_round(t, 1, 2))
    d2 = min(d.number for d in Donne.objects.filter(etui_set=table_round(t, 1, 2).etui_set))
    seats = holders(t, 1, first_donne(t))
    body = {"contract": "garde", "taker": "N", "bouts": "2", "points": "50"}
    body["player"] = seats["N"].pk
    # Round 1 is played (open once its first result is in): round 2's sheet is refused.
    result_save(
        **cell(t, 1, first_donne(t)), data=GARDE_WON, user=personas.arbiter, expected_version=None
    )
    assert Round.objects.get(tournament=t, number=1).state == Round.State.OPEN
    page = client.get(reverse("table_page", args=[later.secret]), HTTP_ACCEPT_LANGUAGE="fr")
    assert page.status_code == 403
    assert "Le tour 2 n’a pas encore commencé" in page.content.decode()
    for action in ("table_save", "table_preview"):
        answer = client.post(reverse(action, args=[later.secret, d2]), body, **EN)
        assert answer.status_code == 403
        assert "Round 2 has not started yet" in answer.json()["errors"]["__all__"][0]
    assert client.get(reverse("table_state", args=[later.secret])).status_code == 403
    assert Round.objects.get(tournament=t, number=2).state == Round.State.PENDING
    assert not Result.objects.filter(donne__number=d2).exists()
    # Round 1's sheet and the table card (which follows the open round) still work.
    access = table_access_issue(table_round=table_round(t, 1, 1))
    assert client.get(reverse("table_page", args=[access.secret])).status_code == 200
    from tournaments.services.table_entry import table_card_url

    card = client.get(table_card_url(table=access.table_round.table).split("8000", 1)[-1])
    assert card.status_code == 302 and card["Location"].endswith(f"/{access.secret}/")
    # Round 1 closed: round 2 is the earliest not closed, its sheet works and opens it.
    Round.objects.filter(tournament=t, number=1).update(state=Round.State.CLOSED)
    assert client.get(reverse("table_page", args=[later.secret])).status_code == 200
    answer = client.post(reverse("table_save", args=[later.secret, d2]), body | {"player": ""})
    assert answer.status_code == 400  # who entered it is still needed; nothing else refused
    player = holders_in(t, 1, 2, d2)["N"]
    code = player_codes_get(tournament=t)[player]
    answer = client.post(
        reverse("table_save", args=[later.secret, d2]), body | {"player": player, "code": code}
    )
    assert answer.status_code == 200, answer.json()
    assert Round.objects.get(tournament=t, number=2).state == Round.State.OPEN


def holders_in(t, table: int, round_: int, donne: int) -> dict[str, int]:
    tr = table_round(t, table, round_)
    numbers = sorted(d.number for d in Donne.objects.filter(etui_set=tr.etui_set))
    return {p: player.pk for p, player in seats_for_donne(tr, numbers.index(donne)).hands.items()}


def test_a_later_round_opens_only_when_the_arbiter_opens_it(t, personas):
    """Issue 30.8: the arbiter's result in round 2 while round 1 is played is refused (it
    used to open round 2 and its table pages); opening it on purpose opens its pages."""
    later = table_access_issue(table_round=table_round(t, 1, 2))
    result_save(
        **cell(t, 1, first_donne(t)), data=GARDE_WON, user=personas.arbiter, expected_version=None
    )
    d2 = min(d.number for d in Donne.objects.filter(etui_set=table_round(t, 1, 2).etui_set))
    with pytest.raises(ResultInvalid, match="Round 2 has not started"):
        result_save(**cell(t, 1, d2), data=GARDE_WON, user=personas.arbiter, expected_version=None)
    assert Round.objects.get(tournament=t, number=2).state == Round.State.PENDING
    with pytest.raises(TableAccessDenied):
        table_access_resolve(secret=later.secret)
    round_open(round_=Round.objects.get(tournament=t, number=2), user=personas.arbiter)
    result_save(**cell(t, 1, d2), data=GARDE_WON, user=personas.arbiter, expected_version=None)
    assert table_access_resolve(secret=later.secret) == later


def _wrong_five(t, access, d, player, good):
    wrong = "0000" if good != "0000" else "1111"
    for _i in range(5):
        with pytest.raises(ResultInvalid):
            table_entry_confirm(
                access=access,
                donne_number=d,
                voucher=Voucher(player_id=player.pk, code=wrong),
                version=None,
            )


def _lock_ends(player) -> datetime.timedelta:
    row = CodeThrottle.objects.get(player=player)
    return row.locked_until - timezone.now()


def _move_back(player, seconds: int) -> None:
    """As if ``seconds`` had passed since the lock was set."""
    row = CodeThrottle.objects.get(player=player)
    CodeThrottle.objects.filter(pk=row.pk).update(
        locked_until=row.locked_until - datetime.timedelta(seconds=seconds)
    )


def test_each_lock_of_a_code_lasts_longer_until_a_quiet_period(t):
    from tournaments.services.table_entry import CODE_LOCK_STEPS, CODE_QUIET_SECONDS

    access = table_access_issue(table_round=table_round(t))
    d = first_donne(t)
    seats = holders(t, 1, d)
    _enter(t, access, d, seats["N"])
    good = player_codes_get(tournament=t)[seats["E"].pk]
    for step in range(1, len(CODE_LOCK_STEPS) + 2):
        _wrong_five(t, access, d, seats["E"], good)
        left = _lock_ends(seats["E"])
        step_seconds = CODE_LOCK_STEPS[min(step, len(CODE_LOCK_STEPS)) - 1]
        assert step_seconds - 10 < left.total_seconds() <= step_seconds, step
        assert CodeThrottle.objects.get(player=seats["E"]).lockouts == step
        with pytest.raises(CodeLocked) as exc:
            table_entry_confirm(
                access=access,
                donne_number=d,
                voucher=Voucher(player_id=seats["E"].pk, code=good),
                version=None,
            )
        assert exc.value.seconds > step_seconds - 10
        _move_back(seats["E"], step_seconds + 1)  # the lock is over
    assert [s // 60 for s in CODE_LOCK_STEPS] == [1, 5, 30, 120, 480]
    # A right code gives the tries back, not the steps: the next lock is the longest.
    table_entry_confirm(
        access=access,
        donne_number=d,
        voucher=Voucher(player_id=seats["E"].pk, code=good),
        version=None,
    )
    assert CodeThrottle.objects.get(player=seats["E"]).lockouts == len(CODE_LOCK_STEPS) + 1
    # Six quiet hours after the last lock ended: the steps start again.
    _move_back(seats["E"], CODE_QUIET_SECONDS)
    _wrong_five(t, access, d, seats["E"], good)
    assert _lock_ends(seats["E"]).total_seconds() <= CODE_LOCK_STEPS[0]
    assert CodeThrottle.objects.get(player=seats["E"]).lockouts == 1


def test_the_arbiter_sees_the_lock_and_unlocks_with_a_new_code(t, client, personas):
    access = table_access_issue(table_round=table_round(t))
    d = first_donne(t)
    seats = holders(t, 1, d)
    _enter(t, access, d, seats["N"])
    east = seats["E"]
    old = player_codes_get(tournament=t)[east.pk]
    _wrong_five(t, access, d, east, old)
    _move_back(east, 61)
    _wrong_five(t, access, d, east, old)  # second lock: five minutes
    client.force_login(personas.arbiter)
    page = client.get(reverse("arbiter_tables", args=[t.pk]), HTTP_ACCEPT_LANGUAGE="en")
    html = page.content.decode()
    row = re.search(rf'<tr data-player="{east.pk}" class="flagged">(.*?)</tr>', html, re.S)
    assert row is not None
    until = timezone.localtime(CodeThrottle.objects.get(player=east).locked_until)
    assert f"Until {until:%H:%M:%S} (lock no. 2)" in row.group(1)
    assert re.search(r"data-wrong-codes>10<", row.group(1))
    assert "Unlock: new code" in row.group(1)
    from tournaments.once import FIELD

    form = re.search(
        rf'<form method="post" action="([^"]+)">.*?name="{FIELD}" value="([^"]+)"',
        row.group(1),
        re.S,
    )
    assert form is not None
    url, token = form.group(1), form.group(2)
    first = client.post(url, {FIELD: token}, HTTP_ACCEPT_LANGUAGE="en")
    new = player_codes_get(tournament=t)[east.pk]
    again = client.post(url, {FIELD: token}, HTTP_ACCEPT_LANGUAGE="en")  # a double click
    assert first.status_code == again.status_code == 302
    assert player_codes_get(tournament=t)[east.pk] == new  # acted on once
    assert not CodeThrottle.objects.filter(player=east).exists()  # unlocked everywhere
    assert PlayerCode.objects.get(player=east).guesses == 0
    if new != old:
        table_entry_confirm(
            access=access,
            donne_number=d,
            voucher=Voucher(player_id=east.pk, code=new),
            version=None,
        )


def test_a_status_change_goes_through_the_one_writer_and_its_guard(t, personas):
    """Confirming a table's entry writes as every change of a result does: the version
    moves, the ledger line names the round, and a round closed since the checks refuses
    it, nothing written."""
    access = table_access_issue(table_round=table_round(t))
    d = first_donne(t)
    seats = holders(t, 1, d)
    result = _enter(t, access, d, seats["N"])
    confirmed = table_entry_confirm(
        access=access, donne_number=d, voucher=by_code(t, seats["E"]), version=result.version
    )
    line = LedgerEntry.objects.filter(result=result).order_by("pk").last()
    assert line.round_id == table_round(t).round_id
    assert (line.reason, line.reason_code, line.reason_params) == (
        "",
        "table_confirmed",
        {"proof": "code"},
    )
    assert reason_en(line) == f"Confirmed at the table by {seats['E']} (personal code)"
    assert (line.before["entry_status"], line.after["entry_status"]) == ("awaiting", "confirmed")
    Result.objects.filter(pk=result.pk).update(card_flags=[{"code": "x", "message": "x"}])
    Round.objects.filter(pk=table_round(t).round_id).update(state=Round.State.CLOSED)
    lines = LedgerEntry.objects.count()
    with pytest.raises(ResultInvalid, match="closed"), transaction.atomic():
        result_confirm_by_arbiter(result=confirmed, user=personas.arbiter)
    assert Result.objects.get(pk=result.pk).version == confirmed.version
    assert LedgerEntry.objects.count() == lines
