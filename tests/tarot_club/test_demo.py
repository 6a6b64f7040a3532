"""`make run` loads the demo: idempotent, seated and dealt, logins that work."""

from __future__ import annotations

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command

from scoring.rules.movement import Movement, validate
from tournaments.models import Donne, Player, Seat, TableRound, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


def counts() -> tuple[int, int, int, int]:
    return (
        Tournament.objects.count(),
        Player.objects.count(),
        Seat.objects.count(),
        Donne.objects.count(),
    )


def test_demo_is_ready_to_play_and_idempotent():
    call_command("load_demo")
    first = counts()
    call_command("load_demo")
    assert counts() == first
    tournament = Tournament.objects.get(name="Tournoi de démonstration")
    assert tournament.status == Tournament.Status.RUNNING
    assert tournament.registrations.filter(checked_in_at__isnull=False).count() == 16
    assert validate(Movement.from_dict(tournament.movement)) == []
    assert tournament.tables.count() == 4
    assert tournament.commitment
    for login in ("organisateur", "arbitre", "joueur", "admin"):
        assert authenticate(username=login, password="tarot-demo") is not None
    assert tournament.arbiters.filter(username="arbitre").exists()
    assert tournament.club.organisers.filter(username="organisateur").exists()


def test_demo_has_a_published_tournament_with_its_ranking_and_revealed_seed():
    call_command("load_demo")
    past = Tournament.objects.get(name="Tournoi d'automne")
    assert past.status == Tournament.Status.PUBLISHED
    scheduled = sum(
        tr.etui_set.donnes.count() for tr in TableRound.objects.filter(round__tournament=past)
    )
    assert past.results.count() == scheduled
    snapshot = past.ranking_snapshots.latest("pk")
    assert snapshot.results_version == past.results_version
    assert past.seed_revealed_at is not None
    call_command("verify_donnes", str(past.pk))
