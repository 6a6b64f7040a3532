"""Counted words read right in French and in English: "1 bout", "2 bouts" (French: "0 bout"),
never "bout(s)".

The pure modules mark a message with two forms with their own ``ngettext`` (a
``scoring.rules.errors.Plural`` naming the param that holds the number); ``translate_error``
picks the form with Django's ``ngettext``. The card checks and the round's closing use Django's
``ngettext`` directly. Each kind is read with a count of 1 and of 2, in French and in English.
"""

from __future__ import annotations

import pickle
import re
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from django.conf import settings
from django.utils import translation

from scoring.rules import cards, dealing, engine, errors, movement
from scoring.rules.errors import InvalidChelem, Plural, ScoringError
from tests.tournaments.test_card_checks import deal
from tests.tournaments.test_error_translation import donne_text, raised
from tournaments.services.checks import card_checks
from tournaments.services.errors import translate_error, translate_message

NNBSP = "\u202f"


def in_both(err: ScoringError) -> tuple[str, str]:
    """The error in French and in English (translate_error), checked against str(err)."""
    with translation.override("fr"):
        french = translate_error(err)
    with translation.override("en"):
        english = translate_error(err)
    assert english == str(err)
    return french, english


# --- the pure modules' errors -------------------------------------------------------------------


def _lines_missing(count: int) -> ScoringError:
    text, _donne = donne_text()
    return raised(cards.parse_donne, "\n".join(text.splitlines()[: 6 - count]))


def _hands(count: int) -> ScoringError:
    donne = dealing.generate_donne(bytes(range(32)), "tarot_club/test", 1)
    return raised(cards.Donne, 1, "N", donne.hands[:count], donne.chien)


def _header_announces(count: int) -> ScoringError:
    donne_set = dealing.generate_donne_set("00" * 32, "tarot_club/test", 3)
    text = cards.format_donne_set(donne_set)
    return raised(cards.parse_donne_set, text.replace("donnes 3", f"donnes {count}", 1))


def _chien_of(count: int) -> ScoringError:
    """A chien of ``count`` cards, the others nowhere in the donne."""
    donne = dealing.generate_donne(bytes(range(32)), "tarot_club/test", 1)
    return raised(cards.Donne, 1, "N", donne.hands, donne.chien[:count])


def _hand_n_of(count: int) -> ScoringError:
    """Hand N of ``count`` cards, the others moved to the chien."""
    donne = dealing.generate_donne(bytes(range(32)), "tarot_club/test", 1)
    north = donne.hands[0]
    hands = (north[:count], *donne.hands[1:])
    return raised(cards.Donne, 1, "N", hands, donne.chien + north[count:])


# (make the error for a count, the French and English words it holds for 1, then for 2)
PURE: dict[str, tuple[Callable[[int], ScoringError], tuple[str, str], tuple[str, str]]] = {
    "points_for_bouts": (
        lambda n: raised(engine.score_deal, players=4, contract="garde", bouts=n, points=90),
        ("Avec 1 bout, l’attaque a entre", "With 1 bout the attack has between"),
        ("Avec 2 bouts, l’attaque a entre", "With 2 bouts the attack has between"),
    ),
    "chelem_made_but_lost": (
        lambda n: InvalidChelem("chelem_made_but_lost", points="40", bouts=n, threshold=51),
        ("or avec 1 bout et 40 points le contrat chute", "40 points with 1 bout is lost"),
        ("or avec 2 bouts et 40 points le contrat chute", "40 points with 2 bouts is lost"),
    ),
    "chelem_defence_but_won": (
        lambda n: InvalidChelem("chelem_defence_but_won", points="60", bouts=n, threshold=51),
        ("or avec 1 bout et 60 points le contrat est gagné", "60 points with 1 bout is won"),
        ("or avec 2 bouts et 60 points le contrat est gagné", "60 points with 2 bouts is won"),
    ),
    "players_too_few": (
        lambda n: raised(movement.generate_movement, 8 - n, 1),
        ("Inscrivez encore 1 joueur.", "Register 1 more player."),
        ("Inscrivez encore 2 joueurs.", "Register 2 more players."),
    ),
    "lines_missing": (
        _lines_missing,
        ("Il manque à la donne 1 la ligne chien.", "Donne 1 lacks the line chien."),
        ("Il manque à la donne 1 les lignes W, chien.", "Donne 1 lacks the lines W, chien."),
    ),
    "hands_count": (
        _hands,
        ("Une donne compte 1 main\u202f;", "A donne has 1 hand;"),
        ("Une donne compte 2 mains\u202f;", "A donne has 2 hands;"),
    ),
    "chien_count_missing": (
        _chien_of,
        ("Le chien compte 1 carte\u202f; il en faut 6. Absentes", "The chien has 1 card; it must"),
        ("Le chien compte 2 cartes\u202f; il en faut 6. Absentes", "The chien has 2 cards; it"),
    ),
    "hand_count": (
        _hand_n_of,
        ("La main de Nord compte 1 carte\u202f; il en faut 18.", "Hand N has 1 card; it must"),
        ("La main de Nord compte 2 cartes\u202f; il en faut 18.", "Hand N has 2 cards; it must"),
    ),
    "header_announces": (
        _header_announces,
        ("L’en-tête annonce 1 donne mais", "The header announces 1 donne but the file has 3."),
        ("L’en-tête annonce 2 donnes mais", "The header announces 2 donnes but the file has 3."),
    ),
}


@pytest.mark.parametrize("kind", PURE)
@pytest.mark.parametrize("count", [1, 2])
def test_a_pure_error_reads_its_count_right_in_french_and_english(kind, count):
    make, one, two = PURE[kind]
    french, english = in_both(make(count))
    expected_french, expected_english = one if count == 1 else two
    assert expected_french in french, french
    assert expected_english in english, english
    for text in (french, english):
        assert "(s)" not in text


def test_french_uses_the_singular_for_zero_bouts_and_english_the_plural():
    err = InvalidChelem("chelem_made_but_lost", points="40", bouts=0, threshold=56)
    french, english = in_both(err)
    assert "avec 0 bout et 40 points" in french
    assert "40 points with 0 bouts is lost" in english


@pytest.mark.parametrize("count", [1, 2])
def test_a_donne_that_differs_by_cards_reads_its_count(count):
    seed, identity = "00" * 32, "tarot_club/test"
    donne = dealing.generate_donne(seed, identity, 1)
    north, east = list(donne.hands[0]), list(donne.hands[1])
    for i in range(count):  # swap ``count`` cards between North and East
        north[i], east[i] = east[i], north[i]
    swapped = cards.Donne(1, donne.dealer, (north, east, *donne.hands[2:]), donne.chien)
    report = dealing.verify(seed, identity, dealing.commitment(seed, identity), [swapped])
    (mismatch,) = report.mismatches
    (detail, *_rest) = mismatch.details
    with translation.override("fr"):
        french = translate_message(detail)
    with translation.override("en"):
        english = translate_message(detail)
    assert english == str(detail)
    if count == 1:
        assert (french, english) == (
            "la main de Nord diffère de 1 carte",
            "hand N differs by 1 card",
        )
    else:
        assert (french, english) == (
            "la main de Nord diffère de 2 cartes",
            "hand N differs by 2 cards",
        )


def test_a_plural_template_survives_pickling_and_keeps_both_forms():
    err = pickle.loads(pickle.dumps(PURE["players_too_few"][0](1)))
    assert isinstance(err.template, Plural)
    assert err.template.count == "more"
    assert str(err).endswith("Register 1 more player.")
    with translation.override("fr"):
        assert translate_error(err).endswith("Inscrivez encore 1 joueur.")


def _pure_templates() -> list[str]:
    found = []
    for module in (cards, dealing, engine, errors, movement):
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, ScoringError):
                found.extend(value.templates.values())
    return found


def test_every_plural_of_the_pure_modules_has_both_french_forms():
    path = Path(settings.LOCALE_PATHS[0]) / "fr" / "LC_MESSAGES" / "django.po"
    with path.open("rb") as po:
        catalogue = {m.id: m.string for m in read_po(po, locale="fr") if m.id}
    templates = _pure_templates()
    plurals = [t for t in templates if isinstance(t, Plural)]
    assert len(plurals) >= 8
    for template in plurals:
        forms = catalogue[(template.singular, template.plural)]
        assert all(forms) and forms[0] != forms[1], template
    # No "(s)" left in what the pure modules say.
    assert [t for t in templates if re.search(r"\w\(s\)", t)] == []


# --- the card checks (tournaments.services.checks) -----------------------------------------------


def warned(the_deal, lang: str, **entry) -> dict[str, str]:
    hands, chien = the_deal
    given = {"taker": "N", "contract": "garde", "bouts": None, "points": None, "poignees": {}}
    given.update(entry)
    with translation.override(lang):
        errors, warnings = card_checks(hands=hands, chien=chien, **given)
    return {**errors, **warnings}


# (deal, entry, message key, French and English words)
CHECKS = {
    "held_by_defence_one_card": (
        deal(E=["T21"], N=["T1", "EX"]),
        {"bouts": 3},
        "bouts_held_by_defence",
        (
            f"L’attaque compte 3 bouts, mais le 21, chez Est{NNBSP}: la défense l’a gardé,",
            "The attack counts 3 bouts, but the 21 held by East: the defence kept it,",
        ),
    ),
    "held_by_defence_two_cards": (
        deal(N=["T21"], chien=["T1", "EX"]),
        {"bouts": 2, "contract": "garde_contre"},
        "bouts_held_by_defence",
        ("la défense les a gardés, l’attaque en a donc au plus 1.", "the defence kept them,"),
    ),
    "held_by_defence_one_bout": (
        deal(E=["T21"], chien=["T1", "EX"]),
        {"bouts": 1, "contract": "garde_contre"},
        "bouts_held_by_defence",
        ("L’attaque compte 1 bout, mais", "The attack counts 1 bout, but"),
    ),
    "held_by_attack_zero_bouts": (
        deal(N=["T21", "T1", "EX"]),
        {"bouts": 0},
        "bouts_held_by_attack",
        ("L’attaque compte 0 bout, mais le 21, chez Nord", "The attack counts 0 bouts, but"),
    ),
    "held_by_attack_two_cards": (
        deal(N=["T21", "T1"], chien=["EX"]),
        {"bouts": 1, "contract": "garde_sans"},
        "bouts_held_by_attack",
        (
            "L’attaque compte 1 bout, mais le 21, chez Nord, l’Excuse dans le chien",
            "The attack counts 1 bout, but the 21 held by North, the Excuse in the chien "
            "(garde sans): the attack kept them, so it has at least 2.",
        ),
    ),
    "excuse_of_the_defence_one_bout": (
        deal(E=["T21", "EX"], chien=["T1"]),
        {"bouts": 1, "contract": "garde_contre"},
        "excuse_held_by_defence",
        ("L’attaque compte 1 bout, mais l’Excuse", "The attack counts 1 bout, but the Excuse"),
    ),
    "excuse_of_the_defence_two_bouts": (
        deal(N=["T21"], chien=["T1"], E=["EX"]),
        {"bouts": 2, "contract": "garde_contre"},
        "excuse_held_by_defence",
        ("L’attaque compte 2 bouts, mais l’Excuse", "The attack counts 2 bouts, but the Excuse"),
    ),
    "excuse_of_the_attack_one_bout": (
        deal(N=["T21", "T1", "EX"]),
        {"bouts": 1},
        "excuse_held_by_attack",
        ("L’attaque compte 1 bout, mais l’Excuse", "The attack counts 1 bout, but the Excuse"),
    ),
    "excuse_of_the_attack_two_bouts": (
        deal(N=["T21", "EX"], chien=["T1"]),
        {"bouts": 2, "contract": "garde_sans"},
        "excuse_held_by_attack",
        ("L’attaque compte 2 bouts, mais l’Excuse", "The attack counts 2 bouts, but the Excuse"),
    ),
    "chelem_chien_of_one_bout": (
        deal(N=["T21"], chien=["T1", "SR"]),
        {
            "bouts": 3,
            "points": Decimal(91),
            "contract": "garde_contre",
            "chelem": "unannounced_made",
        },
        "bouts",
        (
            f"a exactement 1 bout, pas 3 (Ouest tient l’Excuse et la garde{NNBSP}; le chien de la "
            "garde "
            "contre (11 points, 1 bout) va à la défense)",
            "owns exactly 1 bout, not 3 (West holds the Excuse and keeps it; the chien of the "
            "garde contre (11 points, 1 bout) goes to the defence)",
        ),
    ),
    "chelem_chien_of_two_bouts": (
        deal(E=["T21"], chien=["T1", "EX"]),
        {"bouts": 0, "points": Decimal(0), "contract": "garde_sans", "chelem": "defence"},
        "bouts",
        (
            "a exactement 2 bouts, pas 0 (le chien de la garde sans (11 points, 2 bouts) compte "
            "pour l’attaque)",
            "owns exactly 2 bouts, not 0 (the chien of the garde sans (11 points, 2 bouts) "
            "counts for the attack)",
        ),
    ),
}


@pytest.mark.parametrize("kind", CHECKS)
def test_a_card_check_reads_its_counts_right_in_french_and_english(kind):
    the_deal, entry, key, (expected_french, expected_english) = CHECKS[kind]
    french = warned(the_deal, "fr", **entry)[key]
    english = warned(the_deal, "en", **entry)[key]
    assert expected_french in french, french
    assert expected_english in english, english
    assert "(s)" not in french + english


# --- closing a round --------------------------------------------------------------------------


@pytest.mark.django_db
def test_closing_a_round_says_how_many_results_are_missing(running_tournament, personas):
    from tournaments.models import Donne, Round
    from tournaments.services.results import ResultInput, ResultInvalid, result_save, round_close

    round_1 = Round.objects.get(tournament=running_tournament, number=1)
    cells = [
        (table_round.table, donne)
        for table_round in round_1.table_rounds.select_related("table")
        for donne in Donne.objects.filter(etui_set=table_round.etui_set)
    ]

    def refusal(lang: str) -> str:
        with translation.override(lang), pytest.raises(ResultInvalid) as exc:
            round_close(round_=round_1, user=personas.arbiter)
        return exc.value.errors["__all__"][0]

    for table, donne in cells[:-2]:
        result_save(
            tournament=running_tournament,
            table=table,
            donne=donne,
            data=ResultInput(status="all_passed"),
            user=personas.arbiter,
            expected_version=None,
        )
    assert refusal("fr").startswith("Il manque encore 2 résultats au tour 1. Saisissez-les,")
    assert refusal("en").startswith("Round 1 still misses 2 results. Enter them,")
    table, donne = cells[-2]
    result_save(
        tournament=running_tournament,
        table=table,
        donne=donne,
        data=ResultInput(status="all_passed"),
        user=personas.arbiter,
        expected_version=None,
    )
    assert refusal("fr").startswith(
        "Il manque encore 1 résultat au tour 1. Saisissez-le, ou annulez la donne qui n’a pas"
    )
    assert refusal("en").startswith(
        "Round 1 still misses 1 result. Enter it, or annul the donne that could not be played"
    )


# --- more counted words: trumps held, a locked code, a check-in list, sitting out ----------------


@pytest.mark.parametrize("count", [1, 2])
def test_a_poignee_refusal_counts_the_trumps_held(count):
    trumps = ["T1", "T2"][:count]
    # North is not the taker: the chien is not counted with that hand.
    words = warned(deal(N=trumps), "en", taker="E", poignees={"N": "simple"})["poignees.N"]
    mots = warned(deal(N=trumps), "fr", taker="E", poignees={"N": "simple"})["poignees.N"]
    noun, nom = ("trump", "atout") if count == 1 else ("trumps", "atouts")
    assert f"that hand held {count} {noun} (Excuse included)" in words
    assert f"il avait {count} {nom} (Excuse comprise)" in mots
    # The taker of a garde counts the chien (no trump in it here) with the hand.
    the_deal = deal(N=trumps, chien=["S1", "S2", "S3", "H1", "H2", "H3"])
    words = warned(the_deal, "en", taker="N", poignees={"N": "simple"})["poignees.N"]
    mots = warned(the_deal, "fr", taker="N", poignees={"N": "simple"})["poignees.N"]
    assert f"with the chien, that hand held {count} {noun}" in words
    assert f"avec le chien il avait {count} {nom}" in mots


@pytest.mark.parametrize("seconds", [1, 2])
def test_a_locked_code_counts_its_seconds(seconds):
    from tournaments.services.table_entry import CodeLocked

    with translation.override("fr"):
        french = CodeLocked(seconds).errors["code"][0]
    with translation.override("en"):
        english = CodeLocked(seconds).errors["code"][0]
    unit, unite = ("second", "seconde") if seconds == 1 else ("seconds", "secondes")
    assert f"is locked for {seconds} {unit}. Wait" in english
    assert f"est bloqué pendant {seconds} {unite}. Attendez" in french


@pytest.mark.django_db
@pytest.mark.parametrize("count", [1, 2])
def test_the_check_in_list_counts_the_players_registered(count):
    from django.utils import timezone

    from scoring.documents.models import Document
    from tests.fixtures.tournaments import make_players, stage_tournament
    from tests.scoring.documents.pdf import pdf_text
    from tests.scoring.documents.test_renderers import render
    from tournaments.models import Registration, Tournament

    staged = stage_tournament(players=8)
    tournament = Tournament.objects.create(
        club=staged.club, name="Petit tournoi", date=staged.date, rounds=1
    )
    Registration.objects.bulk_create(
        Registration(tournament=tournament, player=p, checked_in_at=timezone.now())
        for p in make_players(staged.club, count, start=500)
    )
    french = pdf_text(render(tournament, Document.Kind.CHECK_IN_LIST, language="fr"))
    english = pdf_text(render(tournament, Document.Kind.CHECK_IN_LIST, language="en"))
    if count == 1:
        assert "1 joueur inscrit." in french and "1 player registered." in english
    else:
        assert "2 joueurs inscrits." in french and "2 players registered." in english


@pytest.mark.django_db
@pytest.mark.parametrize(("players", "rounds", "most"), [(9, 1, 1), (10, 2, 2)])
def test_the_seating_plan_counts_the_donnes_sat_out(client, personas, players, rounds, most):
    from django.urls import reverse

    from tests.fixtures.tournaments import stage_tournament

    tournament = stage_tournament(players=players, rounds=rounds, personas=personas)
    client.force_login(personas.organiser)
    url = reverse("organiser_seating_plan", args=[tournament.pk])
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    french = client.get(url, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    fewest = most - 1
    if most == 1:
        assert f"every player sits out {fewest} or 1 donne (see" in english
        assert f"chaque joueur est mort sur {fewest} ou 1 donne (voir" in french
    else:
        assert f"every player sits out {fewest} or 2 donnes (see" in english
        assert f"chaque joueur est mort sur {fewest} ou 2 donnes (voir" in french


# --- lists in a message: French spaces the ":" and the ";" --------------------------------------


@pytest.mark.django_db
def test_a_refused_list_reads_with_french_spaces(personas):
    from tests.fixtures.tournaments import make_players, stage_tournament
    from tournaments.models import Registration, Tournament
    from tournaments.services.registration import RegistrationsRefused, registrations_add

    t = stage_tournament(players=8, personas=personas, status=Tournament.Status.REGISTRATION)
    newcomer = make_players(t.club, 1, start=700)[0]
    registered = Registration.objects.filter(tournament=t).first().player
    for lang, expected in (
        (
            "fr",
            f"2 joueurs ne peuvent pas être inscrits, donc personne ne l’a été "
            f"({registered.full_name}{NNBSP}: déjà inscrit{NNBSP}; "
            f"{newcomer.full_name}{NNBSP}: ",
        ),
        (
            "en",
            f"2 players cannot be registered, so nobody was ({registered.full_name}: already "
            f"registered; {newcomer.full_name}: listed twice).",
        ),
    ):
        with translation.override(lang), pytest.raises(RegistrationsRefused) as refused:
            registrations_add(tournament=t, players=[registered, newcomer, newcomer])
        assert str(refused.value).startswith(expected), str(refused.value)
