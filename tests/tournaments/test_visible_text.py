"""Text people read has something visible, and nothing that prints nothing (issue 30.7 c).

Blank-looking letters (Hangul fillers, the blank Braille pattern), default-ignorable marks
(the combining grapheme joiner, variation selectors), a pile of accents on one letter, and a
value of only a no-break space passed the check of visible text; so did bidi controls in the
names of a simultaneous event's upload, which reach the public ranking and its CSV. One
validator (`tournaments.validators`) refuses them all, wherever names, venues, reasons and
notes are typed, and the hub's upload parser calls it on the names.
"""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.utils import translation

from tests.tournaments.api.conftest import client_for
from tests.tournaments.simultaneous.hub.test_wire import faults, sample
from tournaments.models import Penalty, Player, Tournament
from tournaments.services.players import player_create
from tournaments.validators import validate_free_text, validate_plain_text

pytestmark = pytest.mark.django_db

STACKED = "Ann" + "\u0301" * 20 + "e"
HOSTILE = {
    "hangul filler": "Anne\u3164",
    "halfwidth hangul filler": "\uffa0",
    "braille blank": "Jean\u2800Luc",
    "grapheme joiner": "Ma\u034frie",
    "variation selector": "Paul\ufe0f",
    "stacked accents": STACKED,
    "no-break space only": "\u00a0",
    "narrow no-break space only": "\u202f\u202f",
}
FINE = ["Hélène", "Nguye\u0302\u0303n", "Jean-Luc", "O'Brien", "Zoé Dupont", "Ñuñez"]


@pytest.mark.parametrize("value", HOSTILE.values(), ids=HOSTILE.keys())
@pytest.mark.parametrize("validator", [validate_plain_text, validate_free_text])
def test_the_validator_refuses_what_prints_nothing(validator, value):
    with translation.override("en"):
        with pytest.raises(ValidationError) as caught:
            validator(value)
        message = " ".join(caught.value.messages)
    assert "position" in message or "nothing visible" in message


@pytest.mark.parametrize("value", FINE)
def test_ordinary_names_pass(value):
    validate_plain_text(value)
    validate_free_text(value + "\nsecond line")


def test_the_messages_say_what_to_fix():
    with translation.override("en"):
        with pytest.raises(ValidationError, match=r"U\+3164 HANGUL FILLER\) at position 5"):
            validate_plain_text("Anne\u3164")
        with pytest.raises(ValidationError, match="Too many accents on one letter"):
            validate_plain_text(STACKED)
        with pytest.raises(ValidationError, match="nothing visible"):
            validate_plain_text("\u00a0")


def test_names_venue_and_reasons_through_the_site(running_tournament, personas):
    t = running_tournament
    with pytest.raises(ValidationError):
        player_create(club=t.club, licence="0123456", last_name="\u3164", first_name="Zoé")
    assert not Player.objects.filter(licence="0123456").exists()
    api = client_for(personas.organiser)
    for body in ({"venue": "\u00a0\u3164"}, {"name": STACKED}, {"name": "Open\u2800"}):
        response = api.patch(f"/api/v1/tournaments/{t.pk}/", body, format="json")
        assert response.status_code == 400, (body, response.json())
    assert Tournament.objects.get(pk=t.pk).venue == t.venue
    player = Player.objects.filter(registrations__tournament=t).first()
    response = client_for(personas.arbiter).post(
        f"/api/v1/tournaments/{t.pk}/penalties/",
        {"player": player.pk, "kind": "early_pickup", "reason": "\ufe0f\u034f"},
        format="json",
    )
    assert response.status_code == 400, response.json()
    assert not Penalty.objects.exists()


@pytest.mark.parametrize("name", ["\u202eAnne", "Anne\u2066", "\u3164", STACKED, "\u00a0"])
def test_the_hubs_upload_refuses_such_names(name):
    data = sample()
    data["players"][0]["first_name"] = name
    with translation.override("en"):
        found = faults(data)
    assert "players[0].first_name" in found, found


@pytest.mark.parametrize("value", ["\u3164", "Club\u2800", STACKED, "Tarot\ufe0f"])
def test_the_hubs_event_and_invitation_names_use_the_same_check(value):
    from tournaments.simultaneous.hub.models import Invitation, SimultaneousEvent

    for field in (
        SimultaneousEvent._meta.get_field("name"),
        Invitation._meta.get_field("club_name"),
    ):
        with pytest.raises(ValidationError):
            field.run_validators(value)
