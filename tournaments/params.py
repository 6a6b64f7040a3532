"""Reading numbers from query strings safely."""

from __future__ import annotations


def id_param(value: str | None, digits: int = 9) -> int | None:
    """The value as a small non-negative integer, or None when it is anything else.

    ASCII digits only: `str.isdigit` accepts "²", which `int` refuses.
    """
    if value and value.isascii() and value.isdigit() and len(value) <= digits:
        return int(value)
    return None
