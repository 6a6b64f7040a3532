"""What a document was built from: a fingerprint of every input it prints.

A document records the fingerprint of its inputs when it is built; the documents page and the
API compare it with the fingerprint of the inputs as they are now, and any difference (a
player renamed, the venue corrected, a seat swapped, a result entered, SITE_URL changed for
the QR codes…) marks it out of date, so the next request builds it again.

The inputs are read in a few flat queries (`Inputs`, one instance per page or build, each part
read at most once) and hashed; each kind of document combines only the parts it prints, so a
result entered does not make the hand records out of date, but a renamed tournament makes
every document out of date (its name is in every page's header).
"""

from __future__ import annotations

import hashlib
from functools import cached_property
from typing import Any

from django.conf import settings
from django.db.models import Count, Max, Q, Sum

from tournaments.models import (
    Donne,
    LedgerEntry,
    Penalty,
    Player,
    PlayerLink,
    Registration,
    Result,
    Round,
    Seat,
    TableAccess,
    TableRound,
    Tournament,
)

from .models import Document

Kind = Document.Kind

# The parts each kind of document prints ("tournament" and the language: every kind).
# "progress" (status, rounds' states) only where it changes what is printed: publishing the
# tournament does not make its route cards out of date.
PARTS: dict[str, tuple[str, ...]] = {
    Kind.HAND_RECORDS: ("donnes", "progress"),
    Kind.ETUI_SETS: ("donnes", "seating"),
    Kind.SCORE_SHEETS: ("donnes", "seating", "players", "site", "table_pages"),
    Kind.ROUTE_CARDS: ("donnes", "seating", "players", "codes"),
    Kind.SCORE_CARDS: ("donnes", "seating", "players", "results", "progress", "site", "links"),
    Kind.RANKING: ("donnes", "seating", "players", "results", "progress"),
    Kind.DONNE_RESULTS: ("donnes", "seating", "players", "results", "progress"),
    Kind.MOVEMENT_CHART: ("donnes", "seating", "players"),
    Kind.TABLE_CARDS: ("donnes", "seating", "site"),
    Kind.CHECK_IN_LIST: ("players", "registrations"),
    Kind.ETUI_LABELS: ("donnes", "seating"),
    Kind.ARBITER_LOG: ("donnes", "seating", "players", "results", "ledger"),
    Kind.RESULTS_SUMMARY: ("donnes", "seating", "players", "results", "progress"),
    Kind.PLAYER_REPORT: ("donnes", "seating", "players", "results", "progress"),
}


def _digest(rows: Any) -> str:
    """A short stable hash of rows read from the database (their repr, in a fixed order)."""
    hasher = hashlib.blake2b(digest_size=16)
    for row in rows:
        hasher.update(repr(row).encode())
        hasher.update(b"\n")
    return hasher.hexdigest()


class Inputs:
    """The current inputs of one tournament's documents, each part read once when needed."""

    def __init__(self, tournament: Tournament) -> None:
        self.tournament_id = tournament.pk

    @cached_property
    def _row(self) -> tuple[Any, ...]:
        """The tournament's row: what every header prints and its settings, then its status and
        its results version."""
        row = Tournament.objects.filter(pk=self.tournament_id).values_list(
            "name",
            "date",
            "venue",
            "method",
            "matchpoint_penalty_rate",
            "rounds",
            "donnes_per_relais",
            "club__name",
            "club__city",
            "club__federation_number",
            "status",
            "results_version",
        )
        return tuple(row.first() or ())

    @cached_property
    def tournament(self) -> str:
        """The tournament and its club as headers print them, and its settings."""
        return _digest(self._row[:-2])

    @cached_property
    def progress(self) -> str:
        """How far the tournament is: its status and the rounds' states (a ranking says
        "provisional" or "final", hand records printed before the end are confidential)."""
        rounds = Round.objects.filter(tournament_id=self.tournament_id).order_by("number")
        return _digest([self._row[-2:-1], *rounds.values_list("number", "state")])

    @cached_property
    def donnes(self) -> str:
        """The cards, dealers and étui sets (a new generation recreates the rows: new ids)."""
        return _digest(
            Donne.objects.filter(tournament_id=self.tournament_id)
            .order_by("number")
            .values_list(
                "id",
                "number",
                "etui_set__number",
                "dealer",
                "hand_n",
                "hand_e",
                "hand_s",
                "hand_w",
                "chien",
            )
        )

    @cached_property
    def seating(self) -> str:
        """Who sits where each round (a hand edit keeps the rows and changes the players)."""
        tables = (
            TableRound.objects.filter(round__tournament_id=self.tournament_id)
            .order_by("round__number", "table__number")
            .values_list(
                "id",
                "round__number",
                "table__number",
                "table__size",
                "etui_set__number",
                "sit_outs",
            )
        )
        seats = (
            Seat.objects.filter(round__tournament_id=self.tournament_id)
            .order_by("table_round_id", "position")
            .values_list("table_round_id", "position", "player_id")
        )
        return _digest([*tables, *seats])

    @cached_property
    def players(self) -> str:
        """The names, licences and clubs of everyone registered or seated."""
        registered = Registration.objects.filter(tournament_id=self.tournament_id)
        seated = Seat.objects.filter(round__tournament_id=self.tournament_id)
        return _digest(
            Player.objects.filter(
                Q(pk__in=registered.values("player_id")) | Q(pk__in=seated.values("player_id"))
            )
            .order_by("pk")
            .values_list("pk", "first_name", "last_name", "licence", "club__name")
        )

    @cached_property
    def registrations(self) -> str:
        """Who is registered and who has checked in (the check-in list)."""
        return _digest(
            Registration.objects.filter(tournament_id=self.tournament_id)
            .order_by("player_id")
            .values_list("player_id", "checked_in_at")
        )

    @cached_property
    def results(self) -> str:
        """Results, penalties and annulments. Every change goes through the results service,
        which bumps `results_version`; the counts and latest times also catch a change made
        elsewhere (the admin)."""
        version = self._row[-1] if self._row else None
        results = Result.objects.filter(tournament_id=self.tournament_id).aggregate(
            n=Count("id"), at=Max("updated_at"), versions=Sum("version")
        )
        penalties = Penalty.objects.filter(tournament_id=self.tournament_id).aggregate(
            n=Count("id"), last=Max("id"), withdrawn=Max("withdrawn_at"), points=Sum("points")
        )
        return _digest([version, sorted(results.items()), sorted(penalties.items())])

    @cached_property
    def ledger(self) -> str:
        """The ledger is append-only: its count and last entry say whether anything was added."""
        entries = LedgerEntry.objects.filter(tournament_id=self.tournament_id).aggregate(
            n=Count("id"), last=Max("id")
        )
        return _digest(sorted(entries.items()))

    @cached_property
    def codes(self) -> str:
        """The players' confirmation codes printed on route cards (drawn here when missing, as
        printing would, so that a first build does not make itself out of date)."""
        from tournaments.services.table_entry import player_codes_get

        tournament = Tournament.objects.get(pk=self.tournament_id)
        return _digest(sorted(player_codes_get(tournament=tournament).items()))

    @cached_property
    def table_pages(self) -> str:
        """The tables' pages printed on score sheets: a page is created when first printed and
        replaced only by the arbiter, who revokes the old one; so the revoked ones say it."""
        revoked = TableAccess.objects.filter(
            tournament_id=self.tournament_id, revoked_at__isnull=False
        ).aggregate(n=Count("id"), last=Max("revoked_at"))
        return _digest(sorted(revoked.items()))

    @cached_property
    def links(self) -> str:
        """The players' personal links printed on score cards (issue 35): a link issued or
        revoked makes the cards out of date."""
        seated = Seat.objects.filter(round__tournament_id=self.tournament_id)
        return _digest(
            PlayerLink.objects.filter(player_id__in=seated.values("player_id"))
            .order_by("pk")
            .values_list("pk", "revoked_at")
        )

    @property
    def site(self) -> str:
        """The site's address, printed in the QR codes."""
        return str(getattr(settings, "SITE_URL", ""))

    def fingerprint(self, kind: str, language: str) -> str:
        """The fingerprint of what a document of this kind, in this language, prints now."""
        parts = [kind, language, self.tournament]
        parts += [getattr(self, name) for name in PARTS.get(kind, tuple(_ALL_PARTS))]
        return hashlib.blake2b("|".join(parts).encode(), digest_size=20).hexdigest()


_ALL_PARTS = (
    "donnes",
    "seating",
    "players",
    "registrations",
    "results",
    "progress",
    "ledger",
    "site",
    "codes",
    "table_pages",
    "links",
)


def document_fingerprint(tournament: Tournament, kind: str, language: str) -> str:
    """The fingerprint of one document's inputs as they are now."""
    return Inputs(tournament).fingerprint(kind, language)
