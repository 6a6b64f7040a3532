"""The user guide is served in French and English, and kept true: every screenshot it names
exists and is made by `make guide`, every link resolves, every page of the site links to a
section that exists, and its worked example is what the comparison code computes."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from urllib.parse import urlsplit

import pytest
from django.urls import Resolver404, URLPattern, URLResolver, get_resolver, resolve, reverse
from django.utils import translation

from scoring.rules.duplicate import differentials, matchpoint_percentage, matchpoints
from tarot_club.guide.pages import IMAGE_DIR, LANGUAGES, PAGES, guide_page
from tarot_club.guide.screenshots import SHOTS
from tarot_club.guide.topics import NO_HELP, TOPICS

ALL = [(slug, lang) for slug in PAGES for lang in LANGUAGES]


def site_url_names() -> set[str]:
    def walk(patterns, prefix=""):
        for p in patterns:
            if isinstance(p, URLResolver):
                if str(p.pattern).startswith(("admin/", "api/", "i18n/")):
                    continue
                yield from walk(p.url_patterns, prefix + str(p.pattern))
            elif isinstance(p, URLPattern) and p.name:
                if (prefix + str(p.pattern)).startswith("api/"):
                    continue  # the API's routes are in docs/API.md, not the guide
                yield p.name

    return set(walk(get_resolver().url_patterns))


@pytest.mark.parametrize(("slug", "lang"), ALL)
def test_every_screenshot_named_exists(slug, lang):
    page = guide_page(slug, lang)
    for image in page.images:
        assert image.startswith(f"{lang}/"), f"{slug} ({lang}) shows a picture of another language"
        assert (IMAGE_DIR / image).is_file(), f"missing screenshot {image}: run `make guide`"


def test_every_screenshot_made_is_shown_and_none_is_left_over():
    for lang in LANGUAGES:
        shown = {img for slug in PAGES for img in guide_page(slug, lang).images}
        made = {f"{lang}/{shot.name}.png" for shot in SHOTS}
        on_disk = {f"{lang}/{p.name}" for p in (IMAGE_DIR / lang).glob("*.png")}
        assert shown == made == on_disk


@pytest.mark.parametrize(("slug", "lang"), ALL)
def test_every_link_resolves(slug, lang):
    anchors = {s: set(guide_page(s, lang).anchors) for s in PAGES}
    for href in guide_page(slug, lang).links:
        parts = urlsplit(href)
        assert not parts.scheme and not parts.netloc, f"{href}: the guide works offline"
        target = resolve(parts.path or "/")  # raises Resolver404 for a broken link
        if target.url_name in ("guide", "guide_page"):
            linked = target.kwargs.get("slug", "index")
            assert linked in PAGES, href
            if parts.fragment:
                assert parts.fragment in anchors[linked], f"{href}: no such section"


def test_both_languages_have_the_same_sections():
    for slug in PAGES:
        assert guide_page(slug, "fr").anchors == guide_page(slug, "en").anchors, slug


def test_every_page_of_the_site_has_a_guide_section():
    names = site_url_names()
    assert names - set(TOPICS) - NO_HELP == set(), "give these pages a section in topics.py"
    assert (set(TOPICS) | NO_HELP) - names == set(), "topics.py names pages that do not exist"
    for slug, anchor in TOPICS.values():
        for lang in LANGUAGES:
            assert not anchor or anchor in guide_page(slug, lang).anchors, (slug, anchor)


@pytest.mark.parametrize(("lang", "slug"), [(lang, slug) for slug in PAGES for lang in LANGUAGES])
def test_the_guide_is_served(client, lang, slug):
    url = reverse("guide") if slug == "index" else reverse("guide_page", args=[slug])
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=lang)
    assert response.status_code == 200
    html = response.content.decode()
    assert f"<h1>{guide_page(slug, lang).title}</h1>" in html
    for image in guide_page(slug, lang).images:
        assert reverse("guide_image", args=image.split("/")) in html
    with pytest.raises(Resolver404):
        resolve("/aide/nowhere/x/")


def test_screenshots_are_served_and_paths_are_checked(client):
    image = guide_page("arbitrer", "fr").images[0]
    response = client.get(reverse("guide_image", args=image.split("/")))
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert client.get("/aide/img/fr/..%2Fsettings.py").status_code == 404
    assert client.get("/aide/img/de/entry.png").status_code == 404
    assert client.get("/aide/inconnue/").status_code == 404


@pytest.mark.django_db
def test_the_header_help_link_leads_to_the_page_s_section(client, running_tournament, personas):
    client.force_login(personas.arbiter)
    html = client.get(reverse("arbiter_dashboard", args=[running_tournament.pk])).content.decode()
    assert 'href="/aide/arbitrer/#tableau-de-bord"' in html
    html = client.get(reverse("ranking", args=[running_tournament.pk])).content.decode()
    assert 'href="/aide/joueurs/#classement"' in html


def _shown(value: Fraction, lang: str) -> str:
    text = str(
        Decimal(value.numerator / value.denominator).quantize(Decimal("0.01"), ROUND_HALF_UP)
    )
    text = re.sub(r"\.00$", "", text)
    text = text.replace(".", ",") if lang == "fr" else text
    return f"+{text}" if value > 0 else text.replace("-", "−")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_worked_example_is_what_the_code_computes(lang):
    with translation.override(lang):
        text = guide_page("joueurs", lang).html.replace("\u00a0", " ")
    scores = [204, 68, -126]
    average = differentials(scores, "average")
    pairwise = differentials(scores, "pairwise")
    mp = [matchpoint_percentage(m, 3) for m in matchpoints(scores)]
    for value in average:
        assert _shown(value, lang) in text
    assert _shown(pairwise[0], lang) in text
    assert [int(p * 100) for p in mp] == [100, 50, 0]
    assert "<strong>100 %</strong>" in text and "50 %" in text and "0 %" in text


@pytest.mark.parametrize("slug", PAGES)
def test_french_keeps_its_punctuation_with_the_word_before(slug):
    """No line of the French guide starts with "?", ":", ";", "!" or "%" on a phone."""
    html = guide_page(slug, "fr").html
    text = re.sub(r"<(code|pre)>.*?</\1>", "", html, flags=re.S)  # code keeps its spaces
    text = re.sub(r"<[^>]+>", "", text)
    assert not re.search(r"[^\S\u00a0][?!:;%»]", text), re.findall(
        r".{20}[^\S\u00a0][?!:;%»]", text
    )
    assert "\u00a0?" in text or "\u00a0:" in text
