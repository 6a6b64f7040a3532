"""The guide speaks the screens' words: every button, link or status it quotes (written
`[[…]]` in its Markdown) is a French message of the site's catalogues in the French guide and an
English one (a msgid) in the English guide, so that a renamed button cannot leave the guide
behind. Also: the guide's count of étui sets a club needs in a simultaneous event is what the
movement computes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from scoring.rules.movement import generate_movement, max_rounds
from tarot_club.guide.pages import PAGES, guide_page, ui_labels
from tests.fixtures.services import ROOT

CATALOGUES = sorted(
    p for p in Path(ROOT).glob("**/locale/fr/LC_MESSAGES/django.po") if ".venv" not in p.parts
)


def _plain(text: str) -> str:
    """Compared as a reader sees it: any space the same, either apostrophe the same."""
    return re.sub(r"[\s\u00a0\u202f]+", " ", text).replace("\u2019", "'").strip()


def _messages() -> tuple[set[str], set[str]]:
    """(French translations, English message ids) of every catalogue of the project."""
    french: set[str] = set()
    english: set[str] = set()
    for path in CATALOGUES:
        with path.open("rb") as handle:
            catalog = read_po(handle)
        for message in catalog:
            ids = message.id if isinstance(message.id, tuple) else (message.id,)
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            english.update(_plain(i) for i in ids if i)
            french.update(_plain(s) for s in strings if s)
    return french, english


FRENCH, ENGLISH = _messages()


@pytest.mark.parametrize(("lang", "known"), [("fr", FRENCH), ("en", ENGLISH)])
@pytest.mark.parametrize("slug", PAGES)
def test_every_label_the_guide_quotes_is_one_of_the_screens(slug, lang, known):
    labels = ui_labels(slug, lang)
    unknown = [label for label in labels if _plain(label) not in known]
    assert unknown == [], f"{lang}/{slug}.md quotes words no screen shows: {unknown}"


def test_the_guide_quotes_the_screens_in_both_languages():
    """The same buttons in both guides (as many quotes), and enough of them to matter."""
    for slug in PAGES:
        assert len(ui_labels(slug, "fr")) == len(ui_labels(slug, "en")), slug
    assert sum(len(ui_labels(slug, "fr")) for slug in PAGES) >= 40


def test_a_quoted_label_is_shown_in_bold_without_its_brackets():
    html = guide_page("organiser", "fr").html
    assert '<strong class="ui-label">Terminer le tournoi</strong>' in html
    assert "[[" not in html and "]]" not in html


def test_the_words_the_screens_dropped_are_gone_from_the_guide():
    """Words of an older product the screens no longer say (issue 31.8)."""
    stale = ["germe", "mot de passe provisoire", "Pointer tout le monde", "prise de cartes"]
    stale += ["Nouveau club", "plan de placement", "donnes commentées", "Statut → terminé"]
    stale += ["la première fois qu'il a tapé son code", "compte relié à votre licence"]
    for slug in PAGES:
        text = guide_page(slug, "fr").html.replace("\u00a0", " ").lower()
        found = [word for word in stale if word.lower() in text]
        assert found == [], f"fr/{slug}.md still says {found}"


SETS_ROW = re.compile(r"^\| (\d+)(?: ou (\d+))? joueurs \| (\d+) \| (\d+) \|$", re.M)


def test_the_guide_s_etui_sets_for_a_simultaneous_event_are_the_movement_s():
    """The table "jeux d'étuis pour un club de N joueurs" (3 and 4 rounds) says the fewest
    sets with which the club's movement is made, and the movement is made with them."""
    text = Path(ROOT, "docs/guide/fr/organiser.md").read_text(encoding="utf-8")
    rows = SETS_ROW.findall(text)
    assert len(rows) >= 5
    for first, second, three, four in rows:
        for players in filter(None, (first, second)):
            for rounds, sets in ((3, int(three)), (4, int(four))):
                fewest = next(s for s in range(1, 200) if max_rounds(int(players), s) >= rounds)
                assert fewest == sets, (players, rounds)
                assert generate_movement(int(players), rounds, sets=sets).sets <= sets


@pytest.mark.django_db
def test_the_login_page_helps_with_the_page_the_visitor_asked_for(client):
    """A player sent to log in from "Où suis-je assis ?" gets that section, not the roles."""
    html = client.get("/login/?next=/t/7/seats/").content.decode()
    assert 'href="/aide/joueurs/#ou-suis-je"' in html
    assert 'href="/aide/#roles"' in client.get("/login/").content.decode()
    assert 'href="/aide/#roles"' in client.get("/login/?next=//evil.example/").content.decode()
    assert 'href="/aide/organiser/#premier-compte"' in client.get("/signup/").content.decode()
