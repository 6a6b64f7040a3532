"""A tournament as one versioned JSON archive, to keep it or move it to another instance.

The archive holds everything the tournament is made of (docs/archive.md): its club, the players
and accounts it refers to (by licence and user name, the keys that mean the same thing on every
instance), its settings and movement, rounds, tables, étui sets, donnes with the commitment,
seats, registrations, results, penalties and the ledger. Rankings are not stored: they are
computed again from the results on import, so an archive can never carry a ranking its results
do not give. Table pages and players' codes are not stored either (they are drawn again).

Import creates a new tournament (new ids) in one transaction: any error leaves nothing behind.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.core import serializers
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, models, transaction
from django.db.models import Q
from django.utils import timezone

from ..models import (
    Club,
    Donne,
    EtuiSet,
    LedgerEntry,
    Penalty,
    Player,
    Registration,
    Result,
    Round,
    Seat,
    Table,
    TableAccess,
    TableRound,
    Tournament,
)

ARCHIVE_FORMAT = "tarot_club tournament archive"
ARCHIVE_VERSION = 1
# In the order they are created on import (each refers only to those before it).
PARTS: tuple[type[models.Model], ...] = (
    Round,
    Table,
    EtuiSet,
    Donne,
    TableRound,
    Seat,
    Registration,
    Result,
    Penalty,
    LedgerEntry,
)
ENCODER = DjangoJSONEncoder


class ArchiveError(ValueError):
    """The archive cannot be imported; the message says why."""


def _rows(queryset: models.QuerySet) -> list[dict[str, Any]]:
    return [
        {"pk": row["pk"], **row["fields"]}
        for row in serializers.serialize("python", queryset.order_by("pk"))
    ]


def _part_queryset(model: type[models.Model], tournament: Tournament) -> models.QuerySet:
    if model in (Seat, TableRound):
        return model.objects.filter(round__tournament=tournament)
    return model.objects.filter(tournament=tournament)


def tournament_export(*, tournament: Tournament) -> dict[str, Any]:
    """The archive of ``tournament`` as plain data (json.dumps with DjangoJSONEncoder)."""
    parts = {model.__name__: _rows(_part_queryset(model, tournament)) for model in PARTS}
    player_ids: set[int] = set()
    user_ids: set[int] = set(tournament.arbiters.values_list("pk", flat=True))
    for model in PARTS:
        for field in model._meta.concrete_fields:
            if not field.is_relation:
                continue
            ids = {row[field.name] for row in parts[model.__name__] if row[field.name]}
            if field.related_model is Player:
                player_ids |= ids
            elif field.related_model is get_user_model():
                user_ids |= ids
    players = Player.objects.filter(pk__in=player_ids).select_related("club").order_by("pk")
    clubs = Club.objects.filter(Q(pk=tournament.club_id) | Q(players__in=players)).distinct()
    users = get_user_model().objects.filter(pk__in=user_ids)
    return {
        "format": ARCHIVE_FORMAT,
        "version": ARCHIVE_VERSION,
        "exported_at": timezone.now().isoformat(),
        "clubs": [
            {"federation_number": c.federation_number, "name": c.name, "city": c.city}
            for c in clubs.order_by("pk")
        ],
        "club": tournament.club.federation_number,
        "users": {str(u.pk): u.get_username() for u in users},
        "players": [
            {
                "pk": p.pk,
                "licence": p.licence,
                "first_name": p.first_name,
                "last_name": p.last_name,
                "club": p.club.federation_number,
            }
            for p in players
        ],
        "tournament": _rows(Tournament.objects.filter(pk=tournament.pk))[0],
        "parts": parts,
    }


def _check(data: Any) -> None:
    if not isinstance(data, dict) or data.get("format") != ARCHIVE_FORMAT:
        raise ArchiveError("This file is not a tarot_club tournament archive.")
    if data.get("version") != ARCHIVE_VERSION:
        raise ArchiveError(
            f"Archive version {data.get('version')!r} is not one this software reads "
            f"(it reads version {ARCHIVE_VERSION})."
        )


class _Importer:
    """Creates the rows of one archive, mapping the archive's ids to the new ones."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.ids: dict[type[models.Model], dict[int, int]] = {}
        self.clubs = {
            c["federation_number"]: Club.objects.get_or_create(
                federation_number=c["federation_number"],
                defaults={"name": c["name"], "city": c.get("city", "")},
            )[0]
            for c in data["clubs"]
        }
        users = get_user_model().objects
        self.users: dict[int, int] = {}
        for old, username in data["users"].items():
            user = users.filter(username=username).first()
            if user is None:  # an account of the other instance: kept by name, cannot log in
                user = users.create(username=username, is_active=False)
                user.set_unusable_password()
                user.save(update_fields=["password"])
            self.users[int(old)] = user.pk
        self.ids[Player] = {}
        for row in data["players"]:
            player = Player.objects.filter(licence=row["licence"]).first()
            if player is None:
                player = Player(
                    licence=row["licence"],
                    first_name=row["first_name"],
                    last_name=row["last_name"],
                    club=self.clubs[row["club"]],
                )
                player.full_clean()
                player.save()
            self.ids[Player][row["pk"]] = player.pk

    def _value(self, field: models.Field, raw: Any) -> Any:
        if raw is None:
            return None
        if not field.is_relation:
            return field.to_python(raw)
        related = field.related_model
        if related is get_user_model():
            return self.users[raw]
        if related is TableAccess:
            return None  # table pages are drawn again
        if related is Club:
            return self.clubs[self.data["club"]].pk
        try:
            return self.ids[related][raw]
        except KeyError:
            raise ArchiveError(
                f"{field.model.__name__}.{field.name} refers to {related.__name__} {raw}, "
                "which is not in the archive."
            ) from None

    def create(self, model: type[models.Model], row: dict[str, Any]) -> models.Model:
        values: dict[str, Any] = {}
        stamps: dict[str, Any] = {}
        for field in model._meta.concrete_fields:
            if field.primary_key or field.name not in row:
                continue
            value = self._value(field, row[field.name])
            if getattr(field, "auto_now_add", False) or getattr(field, "auto_now", False):
                stamps[field.name] = value
            values[field.attname] = value
        obj = model(**values)
        obj.save(force_insert=True)
        if stamps:  # keep the archive's times, which saving replaced with now
            model.objects.filter(pk=obj.pk).update(**stamps)
        self.ids.setdefault(model, {})[row["pk"]] = obj.pk
        return obj


@transaction.atomic
def tournament_import(*, data: dict[str, Any]) -> Tournament:
    """Create the archived tournament here (new ids); ArchiveError, and nothing written, when
    the archive is not one this software reads or does not hold together."""
    _check(data)
    try:
        importer = _Importer(data)
        tournament_row = dict(data["tournament"])
        arbiters = tournament_row.pop("arbiters", [])
        tournament = importer.create(Tournament, tournament_row)
        tournament.arbiters.set(importer.users[a] for a in arbiters)
        for model in PARTS:
            for row in data["parts"].get(model.__name__, []):
                importer.create(model, row)
    except ArchiveError:
        raise
    except IntegrityError as exc:
        raise ArchiveError(f"The archive clashes with what is here already: {exc}.") from exc
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ArchiveError(f"The archive is incomplete or damaged: {exc!r}.") from exc
    tournament.refresh_from_db()
    return tournament


def archive_filename(tournament: Tournament) -> str:
    today = datetime.date.today().isoformat()
    return f"tournament-{tournament.pk}-{today}.json"
