"""French typography of every French text: a no-break space before « : ; ? ! » and inside
« » (the catalogue, the French guide, French text in templates), one apostrophe style in the
catalogue, real plurals instead of "(s)"; `manage.py french_typography --fix` puts the spaces
right without touching placeholders, URLs, times or the hands' notation."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import translation

from tarot_club.management.commands.french_typography import faults, french_files
from tarot_club.typography import (
    APOSTROPHE,
    NNBSP,
    apostrophe_faults,
    apostrophe_text,
    catalogue_faults,
    fix_apostrophes,
    fix_catalogue,
    fix_text,
    plural_faults,
    text_faults,
)

CATALOGUE = Path(settings.BASE_DIR) / "tarot_club/locale/fr/LC_MESSAGES/django.po"


def test_no_french_text_breaks_the_typography():
    found = faults()
    assert not found, (
        "\n".join(str(f) for f in found[:20]) + "\n(manage.py french_typography --fix)"
    )
    call_command("french_typography")  # the check passes: no CommandError


@pytest.mark.parametrize(
    ("text", "fixed"),
    [
        ("Motif : erreur", f"Motif{NNBSP}: erreur"),
        ("Motif: erreur", f"Motif{NNBSP}: erreur"),
        ("Où suis-je assis ?", f"Où suis-je assis{NNBSP}?"),
        ("« Bonjour »", f"«{NNBSP}Bonjour{NNBSP}»"),
        ("Deux ; trois !", f"Deux{NNBSP}; trois{NNBSP}!"),
        ("%(field)s: %(value)s", f"%(field)s{NNBSP}: %(value)s"),
        ("à 12:30, voir https://club.fr/t/?a=1", "à 12:30, voir https://club.fr/t/?a=1"),
        ("groupes S: H: D: C: T: et %(group)s:", "groupes S: H: D: C: T: et %(group)s:"),
        ("`code: x` et {{ a:b }}", "`code: x` et {{ a:b }}"),
        (f"Déjà{NNBSP}: bon", f"Déjà{NNBSP}: bon"),
    ],
)
def test_the_fixer_puts_spaces_right_and_leaves_code_alone(text, fixed):
    assert fix_text(text) == fixed
    assert not text_faults(fixed)


def test_the_check_fails_on_a_bad_message_and_the_fixer_repairs_it_in_place(tmp_path, settings):
    copy = tmp_path / "fr/LC_MESSAGES/django.po"
    copy.parent.mkdir(parents=True)
    shutil.copy(CATALOGUE, copy)
    original = copy.read_text(encoding="utf-8")
    copy.write_text(
        original + '\nmsgid "Seat: %(n)s?"\nmsgstr "Place : %(n)s ?"\n', encoding="utf-8"
    )
    assert [f.line for f in catalogue_faults(copy)] == [len(original.splitlines()) + 3]
    settings.LOCALE_PATHS = [tmp_path]
    with pytest.raises(CommandError):
        call_command("french_typography")
    assert fix_catalogue(copy) == 1
    lines = copy.read_text(encoding="utf-8").splitlines()
    assert lines[:-1] == (original + '\nmsgid "Seat: %(n)s?"').splitlines()  # nothing else moved
    assert lines[-1] == f'msgstr "Place{NNBSP}: %(n)s{NNBSP}?"'
    assert not catalogue_faults(copy)


def test_the_catalogue_uses_one_apostrophe_and_real_plurals():
    """The typographic apostrophe (’), the French norm, in both catalogues (the hub's had it,
    the site's had the straight one: both met on one page)."""
    text = CATALOGUE.read_text(encoding="utf-8")
    assert "l’arbitre" in text
    for catalogue in french_files()["catalogue"]:
        assert not apostrophe_faults(catalogue), catalogue
    for plural in ("%(bouts)s bout(s), %(points)s", "essai(s)", "résultat(s) manquant(s)"):
        assert plural not in text


@pytest.mark.parametrize(("count", "word"), [(1, "1 bout,"), (2, "2 bouts,"), (0, "0 bout,")])
def test_bouts_are_counted_with_a_real_plural(count, word):
    from tournaments.services.results import result_describe

    snapshot = {
        "status": "played",
        "taker": "N",
        "contract": "garde",
        "bouts": count,
        "points": "50",
    }
    with translation.override("fr"):
        assert word in result_describe(snapshot)


def test_no_french_message_writes_a_plural_or_an_agreement_in_brackets():
    found = plural_faults(CATALOGUE)
    assert not found, "\n".join(str(f) for f in found[:20]) + "\n(use ngettext)"


@pytest.mark.parametrize(
    ("msgstr", "faulty"),
    [
        ("Il manque %(n)s résultat(s).", True),
        ("%(n)s joueur(s) inscrit(e)s", True),
        ("Joueuse inscrite(e)", True),
        ("Les nouveau(x) venus", True),
        ("Il manque %(n)s résultats (voir le tableau).", False),
        ("Tour 1 (s’il est ouvert)", False),
        ("le chien (garde sans)", False),
    ],
)
def test_the_plural_check_fails_on_brackets_in_a_french_message(tmp_path, settings, msgstr, faulty):
    copy = tmp_path / "fr/LC_MESSAGES/django.po"
    copy.parent.mkdir(parents=True)
    shutil.copy(CATALOGUE, copy)
    original = copy.read_text(encoding="utf-8")
    copy.write_text(original + f'\nmsgid "Some %(n)s"\nmsgstr "{msgstr}"\n', encoding="utf-8")
    found = plural_faults(copy)
    assert [f.line for f in found] == ([len(original.splitlines()) + 2] if faulty else [])
    settings.LOCALE_PATHS = [tmp_path]
    if faulty:
        with pytest.raises(CommandError):
            call_command("french_typography")
    else:
        call_command("french_typography")


def test_a_wrapped_message_is_checked_with_its_lines_joined(tmp_path):
    """A msgstr wrapped by makemessages: a plain space before ";" at the end of one line, or
    the ";" glued to the end of the line before, is a fault the line-by-line reading missed;
    the fixer mends it on the line where the space belongs and moves nothing else."""
    copy = tmp_path / "fr/LC_MESSAGES/django.po"
    copy.parent.mkdir(parents=True)
    shutil.copy(CATALOGUE, copy)
    original = copy.read_text(encoding="utf-8")
    entry = (
        '\nmsgid "Long: %(a)s; %(b)s"\nmsgstr ""\n"La marque est exacte "\n"; %(b)s ne l\'est pas"\n'
        '\nmsgid "Other"\nmsgstr ""\n"Les relais des clubs"\n": les autres"\n'
    )
    copy.write_text(original + entry, encoding="utf-8")
    count = len(original.splitlines())
    assert [f.line for f in catalogue_faults(copy)] == [count + 4, count + 9]
    assert fix_catalogue(copy) == 2
    lines = copy.read_text(encoding="utf-8").splitlines()
    assert lines[count + 3 : count + 5] == [
        f'"La marque est exacte{NNBSP}"',
        '"; %(b)s ne l\'est pas"',
    ]
    assert lines[count + 8 : count + 10] == [f'"Les relais des clubs{NNBSP}"', '": les autres"']
    assert not catalogue_faults(copy)


@pytest.mark.parametrize(
    ("text", "fixed"),
    [
        ("l'arbitre d'un tournoi", "l’arbitre d’un tournoi"),
        ("aujourd'hui, qu'il", "aujourd’hui, qu’il"),
        ("l'**engagement**", "l’**engagement**"),
        ("La main d'%(position)s", "La main d’%(position)s"),
        ("contient '-' (chicane)", "contient '-' (chicane)"),
        ("<a href='x'>l'aide</a>", "<a href='x'>l’aide</a>"),
        ("`l'code` et l'aide", "`l'code` et l’aide"),
    ],
)
def test_the_apostrophe_fixer_changes_elisions_only(text, fixed):
    assert apostrophe_text(text) == fixed
    assert APOSTROPHE not in apostrophe_text("'donnes' doit être")


def test_the_apostrophe_fixer_leaves_msgids_alone(tmp_path):
    copy = tmp_path / "django.po"
    copy.write_text(
        'msgid ""\nmsgstr ""\n"Language: fr\\n"\n\n'
        'msgid "The arbiter\'s page"\nmsgstr ""\n"La page de l\'arbitre "\n"d\'un tournoi"\n',
        encoding="utf-8",
    )
    assert [f.line for f in apostrophe_faults(copy)] == [7, 8]
    assert fix_apostrophes(copy) == 2
    assert copy.read_text(encoding="utf-8").splitlines()[4:] == [
        'msgid "The arbiter\'s page"',
        'msgstr ""',
        '"La page de l’arbitre "',
        '"d’un tournoi"',
    ]
