"""The hub's own French catalogue is complete and keeps each message's placeholders."""

from __future__ import annotations

import re
from pathlib import Path

from babel.messages.pofile import read_po
from django.conf import settings

PO = Path(settings.BASE_DIR) / "tournaments/simultaneous/hub/locale/fr/LC_MESSAGES/django.po"
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")


def test_every_hub_message_is_in_french_with_its_placeholders():
    assert Path(settings.LOCALE_PATHS[1]) == PO.parents[2]
    with PO.open("rb") as po:
        messages = [m for m in read_po(po, locale="fr") if m.id]
    assert messages
    missing = [m.id for m in messages if m.fuzzy or not m.string]
    wrong = [
        m.id
        for m in messages
        if set(PLACEHOLDER.findall(str(m.id))) != set(PLACEHOLDER.findall(str(m.string)))
    ]
    assert missing == [] and wrong == []
