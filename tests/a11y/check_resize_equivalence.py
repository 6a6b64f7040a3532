"""A check run by its path, not collected (`pytest tests/a11y/check_resize_equivalence.py`):
whether a page loaded at one width and resized is, for axe and for layout, the page loaded at
the new width, which is what `violations_at` (tests/a11y/axe.py) relies on.

For each demo page (phone → laptop) and each page of issue 31 (320 → 390, 320 → 1280), two
windows: one loads the page at the new width, the other at the first width and resizes. Each
axe rule's violations, passes and incomplete nodes, and every element's box, are compared;
a control compares two fresh loads at the same width for the pages whose polled content
(a clock, a ranking) changes between loads. The table goes to var/resize-equivalence.json.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from tests.a11y.axe import DESKTOP, PHONE, TAGS
from tests.a11y.test_axe import demo_pages, log_in, widen_demo

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REPORT = Path(__file__).resolve().parents[2] / "var" / "resize-equivalence.json"
SUMMARY = """async tags => {
  const r = await axe.run(document, {runOnly: {type: 'tag', values: tags}});
  const out = {};
  for (const kind of ['violations', 'passes', 'incomplete', 'inapplicable'])
    for (const rule of r[kind])
      out[kind + ':' + rule.id] = rule.nodes.map(n => n.target.join(' ')).sort();
  const boxes = [...document.querySelectorAll('body *')].map(e => {
    const b = e.getBoundingClientRect();
    return [e.tagName, Math.round(b.x), Math.round(b.y), Math.round(b.width),
            Math.round(b.height)].join(',');
  });
  return {axe: out, boxes};
}"""


def summary(page: Any, axe_source: str) -> dict[str, Any]:
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=axe_source)
    page.evaluate("window.scrollTo(0, 0)")
    return page.evaluate(SUMMARY, TAGS)


def loaded(page: Any, path: str) -> None:
    page.goto(path)
    page.wait_for_load_state("load")
    page.wait_for_timeout(300)


def compare(
    context: tuple[Any, Any, str],
    pages: dict[str | None, list[str]],
    first: dict,
    then: dict,
    *,
    resize: bool = True,
) -> list[dict[str, Any]]:
    """One row per page: the same axe results, the same boxes, and the first differences."""
    browser, live_server, axe_source = context
    rows = []
    for persona, paths in pages.items():
        fresh = log_in(browser, live_server, persona, then)
        other = log_in(browser, live_server, persona, first)
        for path in paths:
            loaded(fresh, path)
            loaded(other, path)
            if resize:
                other.set_viewport_size(then)
            a, b = summary(fresh, axe_source), summary(other, axe_source)
            keys = sorted(
                k for k in a["axe"].keys() | b["axe"].keys() if a["axe"].get(k) != b["axe"].get(k)
            )
            rows.append(
                {"persona": persona, "path": path, "from": first["width"], "to": then["width"],
                 "resized": resize, "same_axe": not keys, "same_boxes": a["boxes"] == b["boxes"],
                 "differences": keys[:4]}
            )  # fmt: skip
        fresh.context.close()
        other.context.close()
    return rows


def write(rows: list[dict[str, Any]]) -> None:
    REPORT.parent.mkdir(exist_ok=True)
    old = json.loads(REPORT.read_text()) if REPORT.exists() else []
    REPORT.write_text(json.dumps(old + rows, indent=1, ensure_ascii=False))


def test_the_demo_pages_resized_from_a_phone_to_a_laptop(browser, live_server, axe_source):
    call_command("load_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    context = (browser, live_server, axe_source)
    pages = demo_pages()
    rows = compare(context, pages, PHONE, DESKTOP)
    moving = [row for row in rows if not (row["same_axe"] and row["same_boxes"])]
    controls = {row["persona"]: [row["path"]] for row in moving}
    rows += compare(context, controls, DESKTOP, DESKTOP, resize=False)
    write(rows)
    # only the pages whose polled clock or ranking changes between two loads at one width
    assert all(row["path"].endswith(("/screen/", "/arbiter/")) for row in moving), moving


def test_the_pages_of_issue_31_resized_from_320_px(browser, live_server, axe_source):
    demo = widen_demo()
    running, past, club = demo["running"], demo["past"], demo["club"]
    pages = {
        None: [f"/t/{past.pk}/ranking/", "/aide/", "/aide/organiser/"],
        "arbitre": [
            f"/t/{running.pk}/arbiter/penalties/",
            f"/t/{past.pk}/arbiter/table/1/donne/1/",
            f"/t/{past.pk}/arbiter/ledger/",
        ],
        "organisateur": [
            "/organiser/",
            f"/organiser/clubs/{club}/accounts/",
            f"/organiser/clubs/{club}/players/",
            f"/t/{running.pk}/registrations/",
            f"/t/{past.pk}/registrations/",
            f"/t/{running.pk}/seating/",
            f"/t/{past.pk}/seating/",
            f"/t/{demo['five'].pk}/seating/",
        ],
    }
    context = (browser, live_server, axe_source)
    narrow = {"width": 320, "height": 800}
    rows = []
    for width in (390, 1280):
        rows += compare(context, pages, narrow, {"width": width, "height": 800})
    write(rows)
    assert all(row["same_axe"] and row["same_boxes"] for row in rows), rows
