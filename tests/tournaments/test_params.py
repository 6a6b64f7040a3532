"""Numbers read from query strings."""

from __future__ import annotations

import pytest

from tournaments.params import id_param


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("7", 7),
        ("0", 0),
        ("123456789", 123456789),
        ("1234567890", None),
        ("", None),
        (None, None),
        ("²", None),
        ("１", None),
        ("-3", None),
        ("3.5", None),
        (" 3", None),
    ],
)
def test_id_param(value, expected):
    assert id_param(value) == expected
