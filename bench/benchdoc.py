"""docs/BENCHMARKS.md, written by the benchmark scripts: each owns one `## ` section."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "BENCHMARKS.md"


def write_section(section: str, text: str, *, old_titles: Iterable[str] = ()) -> None:
    """Replace the section titled ``section`` (or an older title of it) with ``text``, leaving
    the others alone; append it when missing."""
    DOC.parent.mkdir(parents=True, exist_ok=True)
    current = DOC.read_text(encoding="utf-8") if DOC.exists() else "# Benchmarks\n"
    titles = "|".join(re.escape(title) for title in (section, *old_titles))
    pattern = re.compile(rf"^(?:{titles})\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(current):
        updated = pattern.sub(lambda _: text.rstrip("\n") + "\n\n", current, count=1)
    else:
        updated = current.rstrip("\n") + "\n\n" + text
    DOC.write_text(updated.rstrip("\n") + "\n", encoding="utf-8")


def machine_load(load: str | None = None) -> str:
    """How loaded the machine was, in words, from its load average ("1.0, 0.6, 0.2", the
    current one when None): quiet when the last minute's load stayed under its cores."""
    import os

    averages = [float(v) for v in load.split(",")] if load else list(os.getloadavg())
    text = ", ".join(f"{value:.1f}" for value in averages)
    if averages[0] < (os.cpu_count() or 1):
        return f"load average {text}: a quiet machine, nothing else running"
    return (
        f"load average {text}: the machine was shared with other work, so wall times are "
        "inflated and the ratios against the same run's baseline are what to compare"
    )
