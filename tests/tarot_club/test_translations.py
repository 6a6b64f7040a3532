"""The French catalogue is complete and every translation keeps the message's placeholders."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from django.conf import settings

PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")


def catalogue():
    path = Path(settings.LOCALE_PATHS[0]) / "fr" / "LC_MESSAGES" / "django.po"
    with path.open("rb") as po:
        return [m for m in read_po(po, locale="fr") if m.id]


def test_every_message_has_a_french_translation():
    missing = [
        m.id
        for m in catalogue()
        if m.fuzzy or not m.string or (isinstance(m.string, tuple) and not all(m.string))
    ]
    assert missing == []


def test_translations_keep_the_placeholders():
    wrong = []
    for m in catalogue():
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        expected = set(PLACEHOLDER.findall(ids[-1]))
        plural = isinstance(m.id, tuple)
        for text in strings:
            found = set(PLACEHOLDER.findall(text))
            # A plural form may leave out the count ("la donne jouée"), nothing else.
            if (
                (found != expected and not plural)
                or (found - expected)
                or (plural and expected - found - {"counter", "count"})
            ):
                wrong.append((m.id, text))
    assert wrong == []


def test_no_message_is_defined_twice_in_any_catalogue():
    """Two branches adding the same message leave it twice; Babel keeps one silently, gettext's
    msgfmt refuses the file. Every catalogue defines each (context, message) once."""
    twice = []
    for base in settings.LOCALE_PATHS:
        for path in sorted(Path(base).glob("*/LC_MESSAGES/*.po")):
            seen: set[tuple[str, str]] = set()
            text = path.read_text(encoding="utf-8")
            for entry in re.split(r"\n\s*\n", text):
                if entry.lstrip().startswith("#~"):
                    continue
                context = re.search(r'^msgctxt "(.*)"', entry, re.M)
                ident = re.search(r'^msgid ((?:".*"\n?)+)', entry, re.M)
                if not ident:
                    continue
                key = (context.group(1) if context else "", ident.group(1))
                if key in seen and key[1].strip() != '""':
                    twice.append((path.name, key))
                seen.add(key)
    assert twice == []


def locale_to_compile(tmp_path: Path, settings, old_mo: bytes) -> Path:
    """A copy of the French .po under `tmp_path`, beside an older .mo holding `old_mo`, made
    the only locale path: the folder `compile_translations` will compile next."""
    source = Path(settings.LOCALE_PATHS[0]) / "fr" / "LC_MESSAGES" / "django.po"
    folder = tmp_path / "fr" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (folder / "django.po").write_bytes(source.read_bytes())
    (folder / "django.mo").write_bytes(old_mo)
    os.utime(folder / "django.mo", (1, 1))  # older than the .po: to compile
    settings.LOCALE_PATHS = [str(tmp_path)]
    return folder


def test_compile_translations_replaces_each_catalogue_whole_and_skips_current_ones(
    tmp_path, settings
):
    """The .mo appears by a rename (no partial file left beside it, the old one replaced
    whole), readable by gettext; a second run finds it current and leaves it alone."""
    import gettext
    import io

    from django.core.management import call_command

    folder = locale_to_compile(tmp_path, settings, b"stale")

    out = io.StringIO()
    call_command("compile_translations", stdout=out)
    assert "compiled" in out.getvalue()
    assert sorted(p.name for p in folder.iterdir()) == ["django.mo", "django.po"]
    message = next(m for m in catalogue() if isinstance(m.id, str) and not m.context)
    with (folder / "django.mo").open("rb") as mo:
        assert gettext.GNUTranslations(mo).gettext(message.id) == message.string

    again = io.StringIO()
    call_command("compile_translations", stdout=again)
    assert again.getvalue() == ""


def test_a_failed_compile_leaves_the_old_catalogue_and_no_partial_file(
    tmp_path, settings, monkeypatch
):
    """A write that fails midway (a full disk, say) raises, keeps the old .mo as it was and
    removes its partial file."""
    from django.core.management import call_command

    from tarot_club.management.commands import compile_translations

    folder = locale_to_compile(tmp_path, settings, b"old")

    def write_half(mo_file, catalog, use_fuzzy=False):
        mo_file.write(b"half")
        raise OSError("No space left on device")

    monkeypatch.setattr(compile_translations, "write_mo", write_half)
    with pytest.raises(OSError):
        call_command("compile_translations")
    assert sorted(p.name for p in folder.iterdir()) == ["django.mo", "django.po"]
    assert (folder / "django.mo").read_bytes() == b"old"
