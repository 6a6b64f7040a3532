"""Errors of the pure modules reach a French arbiter wholly in French (translate_error).

The pure modules build some words of their messages themselves ("The chien", "hand N",
"1 to 21, or EX", the reason a number of rounds is too many); each is a marked Message that
translate_error translates along with the template.
"""

from __future__ import annotations

import pickle
import re

import pytest
from django.utils import timezone, translation

from scoring.rules import cards, dealing
from scoring.rules.errors import Message, ScoringError
from scoring.rules.movement import generate_movement
from tests.fixtures.tournaments import make_players, stage_tournament
from tournaments.models import Registration, Tournament
from tournaments.services.errors import translate_error
from tournaments.services.preparation import (
    PreparationError,
    tournament_generate,
    tournament_reveal_seed,
    tournament_verify,
)

# English words of these messages that have no place in a French one.
ENGLISH = re.compile(
    r"\b(hand|hands|the|has|cards|must|line|digits|even|number|with|without|session|"
    r"software|here|is|not|and|or|to|players|register|withdraw)\b",
    re.IGNORECASE,
)


def english_words(text: str) -> list[str]:
    return ENGLISH.findall(text)


def raised(call, *args, **kwargs) -> ScoringError:
    with pytest.raises(ScoringError) as info:
        call(*args, **kwargs)
    return info.value


def donne_text(**replace: str) -> tuple[str, cards.Donne]:
    donne = dealing.generate_donne(bytes(range(32)), "tarot_club/test", 1)
    lines = cards.format_donne(donne).splitlines()
    by_key = {line.split(" ", 1)[0]: i for i, line in enumerate(lines)}
    for key, text in replace.items():
        lines[by_key[key]] = f"{key} {text}"
    return "\n".join(lines) + "\n", donne


def _chien_short() -> ScoringError:
    _text, donne = donne_text()
    text, _donne = donne_text(chien=cards.format_hand(donne.chien[1:]))
    return raised(cards.parse_donne, text)


def _chien_card_in_hand_n() -> ScoringError:
    _text, donne = donne_text()
    hand_n = cards.format_hand((*donne.hands[0][1:], donne.chien[0]))
    text, _donne = donne_text(N=hand_n)
    return raised(cards.parse_donne, text)


def _hand_twice() -> ScoringError:
    _text, donne = donne_text()
    text, _donne = donne_text(S=cards.format_hand(donne.hands[1]))
    return raised(cards.parse_donne, text.replace("\nS ", "\nE ", 1))


CASES = {
    "chien_short": _chien_short,
    "chien_card_in_hand_n": _chien_card_in_hand_n,
    "hand_twice": _hand_twice,
    "trump_rank": lambda: raised(cards.parse_hand, "T:22"),
    "suit_rank": lambda: raised(cards.parse_hand, "S:11"),
    "hex_length": lambda: raised(cards.DonneSet, "tarot_club/test", "abc", ()),
    "donne_of_three_hands": lambda: raised(cards.Donne, 1, "N", ((), (), ()), ()),
    "donnes_count": lambda: raised(dealing.generate_donnes, "00" * 32, "t", -1),
    "seed_not_revealed": lambda: raised(
        dealing.verify_set,
        dealing.generate_donne_set("00" * 32, "tarot_club/test", 1, reveal_seed=False),
    ),
    "rounds_sets": lambda: raised(generate_movement, 8, 5, sets=2),
    "rounds_session": lambda: raised(generate_movement, 8, 41),
    "eleven": lambda: raised(generate_movement, 11, 3),
}


@pytest.mark.parametrize("case", CASES)
def test_a_french_arbiter_reads_no_english_word(case):
    err = CASES[case]()
    with translation.override("fr"):
        message = translate_error(err)
    assert english_words(message) == [], message
    # The English message is unchanged by the marking: same text as str(err).
    with translation.override("en"):
        assert translate_error(err) == str(err)


def test_the_chien_and_the_hands_are_named_in_french():
    with translation.override("fr"):
        short = translate_error(_chien_short())
        twice = translate_error(_chien_card_in_hand_n())
    assert short.startswith("Ligne 6\u202f: Le chien compte 5 cartes\u202f; il en faut 6.")
    assert "dans la main de Nord et dans le chien" in twice
    with translation.override("fr"):
        assert translate_error(_hand_twice()) == (
            "Ligne 4\u202f: La main d’Est figure deux fois dans la donne 1."
        )
    assert str(_chien_short()).startswith("Line 6: The chien has 5 cards")


def test_messages_survive_pickling_with_their_templates():
    err = _chien_card_in_hand_n()
    again = pickle.loads(pickle.dumps(err))
    assert str(again) == str(err)
    inner = again.params["message"]
    assert isinstance(inner, Message) and isinstance(inner.params["first"], Message)
    with translation.override("fr"):
        assert translate_error(again) == translate_error(err)


@pytest.mark.django_db
def test_a_damaged_chien_is_reported_in_french_when_verifying():
    tournament = stage_tournament(players=8, status=Tournament.Status.FINISHED)
    tournament_reveal_seed(tournament=tournament)
    row = tournament.donnes.get(number=1)
    row.chien = cards.format_hand(cards.parse_hand(row.chien)[1:])
    row.save(update_fields=["chien"])
    with translation.override("fr"), pytest.raises(PreparationError) as info:
        tournament_verify(tournament=tournament)
    message = str(info.value)
    assert message.startswith("Le chien compte 5 cartes\u202f; il en faut 6."), message
    assert english_words(message) == []


@pytest.mark.django_db
def test_the_eleven_players_refusal_is_in_french():
    tournament = stage_tournament(players=8)
    extra = make_players(tournament.club, 3, start=100)
    Registration.objects.bulk_create(
        Registration(tournament=tournament, player=p, checked_in_at=timezone.now()) for p in extra
    )
    with translation.override("fr"), pytest.raises(PreparationError) as info:
        tournament_generate(tournament=tournament)
    message = str(info.value)
    assert message.startswith("11 joueurs ne peuvent pas être placés"), message
    assert english_words(message) == []
