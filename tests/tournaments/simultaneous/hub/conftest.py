"""An event with three invited clubs, and a way to send each club's upload."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import TestCase

from tournaments.models import Club
from tournaments.simultaneous.hub import services
from tournaments.simultaneous.hub.models import Invitation, SimultaneousEvent

from .builders import player, upload


@dataclass
class Hub:
    event: SimultaneousEvent
    organiser: Any
    clubs: list[tuple[Invitation, str]]  # invitation, token

    def donnes(self, count: int | None = None) -> list[dict[str, Any]]:
        return services.event_donnes(self.event)[: count or self.event.donne_count]

    def upload(self, club: int, results, licences, **kw: Any) -> dict[str, Any]:
        invitation, _token = self.clubs[club]
        donnes = kw.pop("donnes", None)
        if donnes is None:
            numbers = {r["donne"] for r in results} or {1}
            donnes = [d for d in self.donnes() if d["number"] in numbers]
        return upload(
            event=self.event.public_id,
            club=invitation.public_id,
            identity=self.event.identity,
            commitment=self.event.commitment,
            donnes=donnes,
            players=kw.pop("players", None) or [player(x) for x in licences],
            results=results,
            **kw,
        )

    def send(self, club: int, data: dict[str, Any] | bytes, *, token: str | None = None):
        body = data if isinstance(data, bytes) else json.dumps(data).encode()
        token = token or self.clubs[club][1]
        # As at the end of a request: what the upload schedules on commit runs.
        with TestCase.captureOnCommitCallbacks(execute=True):
            return services.upload_receive(
                body=body, token=token, signature=services.signature_of(token, body)
            )


@pytest.fixture
def hub(make_user) -> Hub:
    organiser = make_user("federation")
    club = Club.objects.create(name="Fédération", federation_number="0001")
    club.organisers.add(organiser)
    event = services.event_create(
        user=organiser, name="Simultané d’hiver", date=dt.date(2027, 1, 16), rounds=2, sets=3
    )
    clubs = [
        services.invitation_create(event=event, user=organiser, club_name=name)
        for name in ("Club A", "Club B", "Club C")
    ]
    return Hub(event, organiser, clubs)
