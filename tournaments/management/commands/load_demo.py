"""Load the demo club, its players and a tournament. Idempotent: running it twice creates
nothing twice."""

from __future__ import annotations

import datetime

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from scoring.rankings.services import ranking_recompute
from tournaments.demo import play_demo_results
from tournaments.models import Club, Player, Registration, Tournament
from tournaments.services.preparation import tournament_generate, tournament_reveal_seed

DEMO_PASSWORD = "tarot-demo"
DEMO_PLAYERS = [
    ("Camille", "Arnaud"),
    ("Louis", "Bernard"),
    ("Chloé", "Chevalier"),
    ("Hugo", "Dubois"),
    ("Léa", "Durand"),
    ("Jules", "Fabre"),
    ("Manon", "Garnier"),
    ("Arthur", "Girard"),
    ("Inès", "Lambert"),
    ("Nathan", "Lefèvre"),
    ("Zoé", "Mercier"),
    ("Gabriel", "Morel"),
    ("Jade", "Perrin"),
    ("Raphaël", "Roux"),
    ("Emma", "Simon"),
    ("Théo", "Vincent"),
]


class Command(BaseCommand):
    help = "Load (or complete) the demo club, players, logins and tournament."

    @transaction.atomic
    def handle(self, *args, **options) -> None:
        users = get_user_model().objects
        admin = self._user(users, "admin", is_staff=True, is_superuser=True)
        organiser = self._user(users, "organisateur")
        arbiter = self._user(users, "arbitre")
        player_user = self._user(users, "joueur")
        del admin

        club, _ = Club.objects.get_or_create(
            federation_number="0101", defaults={"name": "Tarot Club de Lyon", "city": "Lyon"}
        )
        club.organisers.add(organiser)
        players = []
        for index, (first, last) in enumerate(DEMO_PLAYERS, start=1):
            player, _ = Player.objects.get_or_create(
                licence=f"99{index:05d}",
                defaults={"first_name": first, "last_name": last, "club": club},
            )
            players.append(player)
        if players[0].user_id is None:
            players[0].user = player_user
            players[0].save(update_fields=["user"])

        tournament, _ = Tournament.objects.get_or_create(
            club=club,
            name="Tournoi de démonstration",
            defaults={
                "date": datetime.date.today(),
                "venue": "Salle des fêtes",
                "rounds": 4,
                "status": Tournament.Status.REGISTRATION,
            },
        )
        tournament.arbiters.add(arbiter)
        now = timezone.now()
        for player in players:
            Registration.objects.get_or_create(
                tournament=tournament, player=player, defaults={"checked_in_at": now}
            )
        if not tournament.tables.exists():
            tournament_generate(tournament=tournament)
            Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.RUNNING)
        self._finished_tournament(club, players, arbiter)
        self.stdout.write(
            f"Demo data ready: {club.name}, {len(players)} players, {tournament} "
            f"({tournament.tables.count()} tables, {tournament.donnes.count()} donnes)."
        )

    def _finished_tournament(self, club: Club, players: list[Player], arbiter) -> None:
        """A past tournament, played, published and with its seed revealed: what players see
        after an event (ranking, score cards, travellers, the check of the donnes)."""
        tournament, created = Tournament.objects.get_or_create(
            club=club,
            name="Tournoi d'automne",
            defaults={
                "date": datetime.date.today() - datetime.timedelta(days=28),
                "venue": "Maison des associations",
                "rounds": 2,
                "status": Tournament.Status.REGISTRATION,
            },
        )
        if not created:
            return
        tournament.arbiters.add(arbiter)
        now = timezone.now()
        Registration.objects.bulk_create(
            Registration(tournament=tournament, player=p, checked_in_at=now) for p in players
        )
        tournament_generate(tournament=tournament)
        Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.RUNNING)
        tournament.refresh_from_db()
        play_demo_results(tournament, arbiter)
        Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
        tournament.refresh_from_db()
        tournament_reveal_seed(tournament=tournament)
        Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.PUBLISHED)
        transaction.on_commit(lambda: ranking_recompute(tournament_id=tournament.pk))

    def _user(self, users, username: str, **flags: bool):
        user, created = users.get_or_create(username=username, defaults=flags)
        if created:
            user.set_password(DEMO_PASSWORD)
            user.save()
        return user
