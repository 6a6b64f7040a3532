"""A client replays a full relais through the API and gets the same ranking as an arbiter who
types the same score sheets into the screens.

Two tournaments are staged alike (same players, same movement) and given the same hands; the
seating draw differs, so players are matched by where they sit in round 1 (the movement then
takes both to the same places). Tournament A is entered with the arbiter's form (Django test
client, the real POSTs), tournament B through the API; both get a correction, an annulment,
an all-passed donne and a penalty.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from scoring.rankings.services import ranking_recompute
from tests.fixtures.tournaments import stage_tournament
from tests.scoring.rankings.helpers import ranking_read
from tests.tournaments.api.conftest import client_for
from tournaments.models import POSITIONS, Donne, Player, Seat, TableRound, Tournament
from tournaments.services.checks import WARNING_CODES
from tournaments.services.results import ResultInput, result_preview

pytestmark = pytest.mark.django_db

ENTRIES: list[dict[str, Any]] = [
    {"taker": "N", "contract": "garde", "bouts": 2, "points": "50", "petit_au_bout": "attack"},
    {"taker": "E", "contract": "prise", "bouts": 1, "points": "45"},
    {"status": "all_passed"},
    {"taker": "S", "contract": "garde_sans", "bouts": 3, "points": "61"},
    {"taker": "W", "contract": "prise", "bouts": 0, "points": "52", "petit_au_bout": "defence"},
    {"taker": "N", "contract": "garde_contre", "bouts": 2, "points": "38"},
    {"taker": "E", "contract": "garde", "bouts": 1, "points": "58", "chelem": ""},
]


def cells(t: Tournament) -> list[tuple[int, int]]:
    """Every (table, donne) the relais schedules, in playing order."""
    out = []
    for tr in TableRound.objects.filter(round__tournament=t).select_related("table", "round"):
        for donne in tr.etui_set.donnes.order_by("number"):
            out.append((tr.round.number, tr.table.number, donne.number))
    return [(table, donne) for _r, table, donne in sorted(out)]


def round_starts(t: Tournament) -> dict[tuple[int, int], int]:
    """The first (table, donne) of every round after the first, and its round: the arbiter
    opens that round on purpose before entering it while the earlier one is not closed."""
    starts: dict[tuple[int, int], int] = {}
    for tr in TableRound.objects.filter(round__tournament=t, round__number__gt=1).select_related(
        "table", "round"
    ):
        for donne in tr.etui_set.donnes.all():
            starts[(tr.table.number, donne.number)] = tr.round.number
    first = {}
    for cell in cells(t):
        number = starts.get(cell)
        if number is not None and number not in first.values():
            first[cell] = number
    return first


def entry_for(t: Tournament, table: int, donne: int) -> dict[str, Any]:
    """A deterministic entry, different per table on the same donne; with a poignée for the
    taker when his cards allow one (checked by the service's preview)."""
    entry = dict(ENTRIES[(3 * table + donne) % len(ENTRIES)])
    if entry.get("status") == "all_passed":
        return entry
    with_poignee = {**entry, "poignees": {entry["taker"]: "simple"}}
    preview = result_preview(
        tournament=t,
        table=t.tables.get(number=table),
        donne=t.donnes.get(number=donne),
        data=ResultInput(
            status="played",
            taker=entry["taker"],
            contract=entry["contract"],
            bouts=entry["bouts"],
            points=Decimal(entry["points"]),
            petit_au_bout=entry.get("petit_au_bout", ""),
            poignees={entry["taker"]: "simple"},
        ),
    )
    return with_poignee if not preview.errors else entry


def form_data(entry: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """The arbiter's form fields for an entry."""
    if entry.get("status") == "all_passed":
        data: dict[str, Any] = {"contract": "all_passed"}
    else:
        data = {
            "taker": entry["taker"],
            "contract": entry["contract"],
            "bouts": str(entry["bouts"]),
            "points": entry["points"],
            "petit_au_bout": entry.get("petit_au_bout", ""),
            "chelem": entry.get("chelem", ""),
        }
        for position in POSITIONS:
            data[f"poignee_{position}"] = entry.get("poignees", {}).get(position, "")
    data["confirm"] = list(WARNING_CODES)
    data.update({k: v for k, v in extra.items() if v is not None})
    return data


def slot_map(a: Tournament, b: Tournament) -> dict[int, int]:
    """Player of A → player of B sitting at the same table and position in round 1; checked
    to hold in every round."""

    def seats(t: Tournament) -> dict[tuple[int, int, str], int]:
        return {
            (s.round.number, s.table_round.table.number, s.position): s.player_id
            for s in Seat.objects.filter(round__tournament=t).select_related(
                "round", "table_round__table"
            )
        }

    seats_a, seats_b = seats(a), seats(b)
    mapping = {seats_a[k]: seats_b[k] for k in seats_a if k[0] == 1}
    assert all(mapping[seats_a[k]] == seats_b[k] for k in seats_a), "movements differ"
    return mapping


FIXED = {**ENTRIES[0], "points": "56"}  # the correction of table 1's donne 2


def same_cards(a: Tournament, b: Tournament) -> None:
    """Give B's donnes A's hands, chien and dealer."""
    for donne in Donne.objects.filter(tournament=b):  # the same cards in both
        twin = Donne.objects.get(tournament=a, number=donne.number)
        Donne.objects.filter(pk=donne.pk).update(
            hand_n=twin.hand_n,
            hand_e=twin.hand_e,
            hand_s=twin.hand_s,
            hand_w=twin.hand_w,
            chien=twin.chien,
            dealer=twin.dealer,
        )


def enter_through_the_screens(
    a: Tournament, schedule: list[tuple[int, int]], arbiter: Any
) -> Player:
    """A: the arbiter types every score sheet into his screens, then a correction, an
    annulment and a penalty (to the player returned: North of table 1 in round 1)."""
    screen = Client(HTTP_ACCEPT_LANGUAGE="en")
    screen.force_login(arbiter)
    base = f"/t/{a.pk}/arbiter"
    starts = round_starts(a)
    for table, donne in schedule:
        if (table, donne) in starts:
            number = starts[(table, donne)]
            screen.post(reverse("arbiter_round_open", args=[a.pk, number]), {"confirm_open": "1"})
        response = screen.post(
            f"{base}/table/{table}/donne/{donne}/", form_data(entry_for(a, table, donne))
        )
        assert response.status_code == 302, response.content.decode()[:2000]
    response = screen.post(
        f"{base}/table/1/donne/2/", form_data(FIXED, version=1, reason="Score sheet misread")
    )
    assert response.status_code == 302
    response = screen.post(
        f"{base}/table/2/donne/3/annul/", {"reason": "Étuis mixed", "version": 1}
    )
    assert response.status_code == 302
    sitter_a = Seat.objects.get(
        round__tournament=a, round__number=1, table_round__table__number=1, position="N"
    ).player
    response = screen.post(
        f"{base}/penalties/",
        {
            "player": sitter_a.pk,
            "kind": "early_pickup",
            "donne": Donne.objects.get(tournament=a, number=2).pk,
        },
    )
    assert response.status_code == 302
    return sitter_a


def enter_through_the_api(
    api: Any, root: str, b: Tournament, schedule: list[tuple[int, int]], sitter: int
) -> None:
    """B: the same score sheets, correction, annulment and penalty (to `sitter`, A's
    penalised player's place in B) through the API."""
    starts = round_starts(b)
    for table, donne in schedule:
        if (table, donne) in starts:
            opened = api.post(
                root + f"rounds/{starts[(table, donne)]}/open/",
                {"confirm_open": True},
                format="json",
            )
            assert opened.status_code == 200, opened.json()
        entry = entry_for(b, table, donne)
        body = {"table": table, "donne": donne, **entry, "confirm": list(WARNING_CODES)}
        response = api.post(
            root + "results/", body, format="json", HTTP_IDEMPOTENCY_KEY=f"t{table}d{donne}"
        )
        assert response.status_code == 201, response.json()
        assert response.json()["scores"], response.json()
    response = api.put(
        root + "results/1/2/",
        {**FIXED, "confirm": list(WARNING_CODES), "reason": "Score sheet misread"},
        format="json",
        HTTP_IF_MATCH='"1"',
    )
    assert response.status_code == 200, response.json()
    response = api.post(
        root + "results/2/3/annul/", {"reason": "Étuis mixed", "version": 1}, format="json"
    )
    assert response.status_code == 200
    response = api.post(
        root + "penalties/",
        {"player": sitter, "kind": "early_pickup", "donne": 2},
        format="json",
    )
    assert response.status_code == 201


def test_the_api_and_the_screens_give_the_same_ranking(personas) -> None:
    a = stage_tournament(personas=personas, name="Par les écrans")
    b = stage_tournament(name="Par l'API")
    b.arbiters.add(personas.arbiter)
    same_cards(a, b)
    mapping = slot_map(a, b)
    schedule = cells(a)
    assert schedule == cells(b) and len(schedule) == 16  # 2 tables × 2 rounds × 4 donnes
    sitter_a = enter_through_the_screens(a, schedule, personas.arbiter)
    api = client_for(personas.arbiter)
    root = f"/api/v1/tournaments/{b.pk}/"
    enter_through_the_api(api, root, b, schedule, mapping[sitter_a.pk])

    # --- the same ranking ----------------------------------------------------------------
    for t in (a, b):
        ranking_recompute(tournament_id=t.pk)
    a.refresh_from_db()
    b.refresh_from_db()
    assert a.results_version == b.results_version == 16 + 3
    screens = ranking_read(a)
    assert screens.is_current
    ranking = api.get(root + "ranking/").json()
    assert ranking["is_current"] is True
    assert ranking["version"] == ranking["results_version"] == b.results_version

    def row_a(line: Any) -> tuple[Any, ...]:
        return (
            mapping[line.player.pk],
            line.rank,
            str(line.total.numerator)
            if line.total.denominator == 1
            else f"{line.total.numerator}/{line.total.denominator}",
            line.penalty_points,
            line.donnes_played,
            line.donnes_compared,
        )

    def row_b(row: dict[str, Any]) -> tuple[Any, ...]:
        return (
            row["player"]["id"],
            row["rank"],
            row["total_exact"],
            row["penalty_points"],
            row["donnes_played"],
            row["donnes_compared"],
        )

    expected = sorted(row_a(line) for line in screens.rows)
    got = sorted(row_b(row) for row in ranking["rows"])
    assert got == expected
    assert len(got) == 8
    assert len({row[2] for row in got}) > 2, "the relais should separate the players"
    assert any(row[3] == 100 for row in got)
    assert (
        Player.objects.filter(pk__in=[r[0] for r in got], registrations__tournament=b).count() == 8
    )
