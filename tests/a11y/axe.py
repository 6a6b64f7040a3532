"""axe-core (from npm, tests/a11y/package.json) injected into pages driven by Playwright.

Why a helper: every accessibility test runs the same engine with the same rules (WCAG 2.1 A and
AA plus axe's best practices) and reports the same way: one line per violation and node, so a
failure says what to fix and where.

Widths: the site's pages adapt to the window's width by CSS media queries alone (no script
reads the window's size or listens to its resizing, and the server cannot know it;
tests/a11y/test_widths.py keeps it so). A page loaded once and resized is therefore the page
as loaded at the new width, so `violations_at` audits one loaded page at several widths by
resizing the viewport and running axe again, instead of loading it again per width.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.services import require

AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
BLOCKING = {"critical", "serious", "moderate"}
EVERY_IMPACT = {*BLOCKING, "minor"}
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="session")
def axe_source() -> str:
    require("axe-core (npm ci --prefix tests/a11y)", AXE.exists())
    return AXE.read_text(encoding="utf-8")


def violations(page: Any, axe_source: str, impacts: set[str] = BLOCKING) -> list[str]:
    """The violations of the page as it is now (of the blocking impacts unless told), one
    readable line per node."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=axe_source)
    result = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})",
        TAGS,
    )
    lines = []
    for violation in result["violations"]:
        if violation.get("impact") not in impacts:
            continue
        for node in violation["nodes"]:
            target = " ".join(str(t) for t in node.get("target", []))
            lines.append(
                f"{page.url} [{violation['impact']}] {violation['id']}: {target} — "
                f"{node.get('failureSummary', '').splitlines()[-1].strip()}"
            )
    return lines


def violations_at(
    page: Any, axe_source: str, viewports: list[dict], impacts: set[str] = BLOCKING
) -> list[str]:
    """The violations of the page as it is now at each of `viewports` in turn (see the module's
    docstring on widths), each line prefixed by its width; the page ends at its first viewport."""
    lines = []
    for viewport in viewports:
        page.set_viewport_size(viewport)
        found = violations(page, axe_source, impacts)
        lines += [f"@{viewport['width']}px {line}" for line in found]
    page.set_viewport_size(viewports[0])
    return lines
