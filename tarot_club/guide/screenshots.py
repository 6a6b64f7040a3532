"""The guide's screenshots: which page of the demo, seen by whom, at which size.

`make guide` (manage.py guide_screenshots) loads the demo into a scratch database, serves it, and
photographs each page below in Chromium, in French and in English, into docs/guide/img/<lang>/.
A changed screen therefore shows up as a changed picture in the repository.
"""

from __future__ import annotations

from dataclasses import dataclass

from tournaments.models import Player, Tournament

DESKTOP = {"width": 1100, "height": 760}
PHONE = {"width": 390, "height": 760}


@dataclass(frozen=True)
class Shot:
    name: str  # file name without .png
    persona: str | None  # demo login, or None for a visitor
    path: str  # with {running}, {past}, {player}, {club}
    viewport: dict[str, int]


SHOTS: tuple[Shot, ...] = (
    Shot("organiser-home", "organisateur", "/organiser/", DESKTOP),
    Shot("club-players", "organisateur", "/organiser/clubs/{club}/players/", DESKTOP),
    Shot("registrations", "organisateur", "/t/{running}/registrations/", DESKTOP),
    Shot("prepare", "organisateur", "/t/{running}/prepare/", DESKTOP),
    Shot("seating", "organisateur", "/t/{running}/seating/", DESKTOP),
    Shot("documents", "organisateur", "/t/{running}/documents/", DESKTOP),
    Shot("verify", None, "/t/{past}/verify/", PHONE),
    Shot("dashboard", "arbitre", "/t/{running}/arbiter/", DESKTOP),
    Shot("entry", "arbitre", "/t/{running}/arbiter/table/1/donne/1/", DESKTOP),
    Shot("penalties", "arbitre", "/t/{past}/arbiter/penalties/", DESKTOP),
    Shot("ledger", "arbitre", "/t/{past}/arbiter/ledger/", DESKTOP),
    Shot("tournament", None, "/t/{running}/", PHONE),
    Shot("ranking", None, "/t/{past}/ranking/", PHONE),
    Shot("score-card", None, "/t/{past}/ranking/{player}/", PHONE),
    Shot("traveller", None, "/t/{past}/donnes/1/", PHONE),
    Shot("seats", None, "/t/{running}/seats/?q=arnaud", PHONE),
    Shot("table-page", None, "{table_page}", PHONE),
    Shot("room-screen", None, "/t/{running}/screen/", {"width": 1280, "height": 720}),
)


def demo_ids() -> dict[str, int | str]:
    """The ids the paths above need, read from the demo data; the running tournament's first
    round is opened, so that its tables' pages exist."""
    from urllib.parse import urlsplit

    from tournaments.models import Round, TableRound
    from tournaments.services.table_entry import table_page_url

    running = Tournament.objects.get(name="Tournoi de démonstration")
    Round.objects.filter(tournament=running, number=1).update(state=Round.State.OPEN)
    table_round = TableRound.objects.filter(round__tournament=running, round__number=1).first()
    return {
        "running": running.pk,
        "past": Tournament.objects.get(name="Tournoi d'automne").pk,
        "player": Player.objects.get(user__username="joueur").pk,
        "club": running.club_id,
        "table_page": urlsplit(table_page_url(table_round=table_round)).path,
    }
