"""Why the audits may resize a loaded page instead of loading it again per width
(tests/a11y/axe.py, `violations_at`): the site's pages adapt to the window's width by CSS media
queries alone, which the browser applies again on every resize. That holds while no script of
the site reads the window's size or reacts to its resizing, and the server cannot learn the
width (no client hints). This test keeps it so: a script that does either makes the resized
audits unsound, and the audits must then load such a page at each width."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("tarot_club", "tournaments", "scoring", "templates")

# What a script reads to learn the window's size or to follow its changes.
READS_THE_WIDTH = re.compile(
    r"matchMedia|inner(Width|Height)|outer(Width|Height)|client(Width|Height)|offset(Width|Height)"
    r"|getBoundingClientRect|getClientRects|visualViewport|devicePixelRatio|orientation"
    r"|screen\.(width|height|avail)|ResizeObserver|IntersectionObserver|['\"]resize['\"]"
    r"|onresize|hx-trigger=['\"][^'\"]*(revealed|intersect)"
)
# Reading a box only to restart a CSS animation: nothing depends on the value.
HARMLESS = re.compile(r"void [\w.]+\.offsetWidth;")
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", re.S | re.I)
CLIENT_HINTS = re.compile(r"Accept-CH|Sec-CH-|Viewport-Width|HTTP_SEC_CH|HTTP_VIEWPORT", re.I)


def site_files(suffixes: tuple[str, ...]) -> list[Path]:
    return sorted(
        path
        for top in SOURCES
        for path in (ROOT / top).rglob("*")
        if path.suffix in suffixes and "node_modules" not in path.parts
    )


def width_reads(text: str, where: str) -> list[str]:
    return [
        f"{where}:{number}: {line.strip()}"
        for number, line in enumerate(text.splitlines(), 1)
        if READS_THE_WIDTH.search(HARMLESS.sub("", line))
    ]


def test_no_script_of_the_site_reads_the_windows_size():
    scripts = site_files((".js",))
    assert scripts, "no script found: the paths of this test are out of date"
    found: list[str] = []
    for path in scripts:
        found += width_reads(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    for path in site_files((".html",)):
        text = path.read_text(encoding="utf-8")
        for script in INLINE_SCRIPT.findall(text):
            found += width_reads(script, f"{path.relative_to(ROOT)} (inline script)")
        found += [
            f"{path.relative_to(ROOT)}: {m}"
            for m in re.findall(r"hx-trigger=\S+", text)
            if READS_THE_WIDTH.search(m)
        ]
    assert found == [], "\n".join(found)


def test_the_server_asks_no_client_hint_of_the_windows_size():
    found = [
        f"{path.relative_to(ROOT)}: {match.group(0)}"
        for path in site_files((".py", ".html"))
        for match in CLIENT_HINTS.finditer(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "\n".join(found)
