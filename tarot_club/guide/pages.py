"""Reading and rendering the guide's Markdown pages.

Headings may carry an id (`## Title {#anchor}`) so that the site's pages can link to a section;
the words of the screens (buttons, links, statuses) are written `[[Terminer le tournoi]]`,
shown in bold, and a test holds each to the site's catalogue (`ui_labels`);
relative links between guide pages (`arbitrer.md#saisie`) and images (`img/fr/x.png`) are
rewritten to the site's guide URLs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.urls import reverse
from markdown_it import MarkdownIt
from markdown_it.token import Token

GUIDE_DIR = Path(settings.BASE_DIR) / "docs" / "guide"
IMAGE_DIR = GUIDE_DIR / "img"
PAGES = ("index", "organiser", "arbitrer", "joueurs")
LANGUAGES = ("fr", "en")
IMAGE_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*\.png$")
_HEADING_ID = re.compile(r"\s*\{#([A-Za-z0-9_-]+)\}\s*$")
_PAGE_LINK = re.compile(r"^([a-z]+)\.md(#[A-Za-z0-9_-]+)?$")
_IMAGE_LINK = re.compile(r"^img/(fr|en)/([a-z0-9-]+\.png)$")
# French sets a no-break space before ? ! : ; % » and after «, so that a line never starts
# with "?" or "%" ("assis" / "?" on a phone).
_FRENCH_SPACE_BEFORE = re.compile(r" +([?!:;%»])")
_FRENCH_SPACE_AFTER = re.compile(r"« +")
NBSP = "\u00a0"
UI_LABEL = re.compile(r"\[\[([^\[\]\n]+)\]\]")


def french_spacing(text: str) -> str:
    """`text` with the spaces French typography keeps with their punctuation made no-break."""
    text = _FRENCH_SPACE_BEFORE.sub(NBSP + r"\1", text)
    return _FRENCH_SPACE_AFTER.sub("«" + NBSP, text)


@dataclass(frozen=True)
class GuidePage:
    slug: str
    language: str
    title: str
    html: str
    anchors: tuple[str, ...]
    images: tuple[str, ...]  # "fr/entry.png"
    links: tuple[str, ...]  # every href, after rewriting


def guide_language(language: str | None) -> str:
    """The guide's language for the page's language (French unless English is asked)."""
    return "en" if (language or "").startswith("en") else "fr"


def source_path(slug: str, language: str) -> Path:
    return GUIDE_DIR / guide_language(language) / f"{slug}.md"


def _rewrite(href: str) -> str:
    page = _PAGE_LINK.match(href)
    if page and page.group(1) in PAGES:
        return page_url(page.group(1)) + (page.group(2) or "")
    image = _IMAGE_LINK.match(href)
    if image:
        return reverse("guide_image", args=[image.group(1), image.group(2)])
    return href


def page_url(slug: str) -> str:
    return reverse("guide") if slug == "index" else reverse("guide_page", args=[slug])


def _walk(tokens: list[Token]):
    for token in tokens:
        yield token
        if token.children:
            yield from _walk(token.children)


@lru_cache(maxsize=16)
def _render(slug: str, language: str, mtime: float) -> GuidePage:
    del mtime  # part of the cache key only: an edited page is read again
    text = source_path(slug, language).read_text(encoding="utf-8")
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(text)
    anchors: list[str] = []
    images: list[str] = []
    title = slug
    for index, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        inline = tokens[index + 1]
        found = _HEADING_ID.search(inline.content)
        if found:
            token.attrSet("id", found.group(1))
            anchors.append(found.group(1))
            inline.content = _HEADING_ID.sub("", inline.content)
            last = inline.children[-1] if inline.children else None
            if last is not None and last.type == "text":
                last.content = _HEADING_ID.sub("", last.content)
        if token.tag == "h1" and title == slug:
            title = french_spacing(inline.content) if language == "fr" else inline.content
    links: list[str] = []
    for token in _walk(tokens):
        if token.type == "text" and language == "fr":
            token.content = french_spacing(token.content)
        if token.type == "link_open":
            token.attrSet("href", _rewrite(str(token.attrGet("href"))))
            links.append(str(token.attrGet("href")))
        elif token.type == "image":
            src = str(token.attrGet("src"))
            image = _IMAGE_LINK.match(src)
            if image:
                images.append(f"{image.group(1)}/{image.group(2)}")
            token.attrSet("src", _rewrite(src))
            token.attrSet("loading", "lazy")
    html = md.renderer.render(tokens, md.options, {})
    html = UI_LABEL.sub(r'<strong class="ui-label">\1</strong>', html)
    return GuidePage(slug, language, title, html, tuple(anchors), tuple(images), tuple(links))


def guide_page(slug: str, language: str) -> GuidePage:
    """One page of the guide in the given language, rendered to HTML (cached until edited)."""
    if slug not in PAGES:
        raise KeyError(slug)
    lang = guide_language(language)
    return _render(slug, lang, source_path(slug, lang).stat().st_mtime)


def ui_labels(slug: str, language: str) -> list[str]:
    """The words of the screens the guide's page quotes (`[[…]]` in its Markdown), in order."""
    text = source_path(slug, guide_language(language)).read_text(encoding="utf-8")
    return [label.strip() for label in UI_LABEL.findall(text)]
