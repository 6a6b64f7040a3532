"""The championships' domain error and its answer in the API (the kit's one error shape)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tarot_club.kit.api.errors import ApiError, invalid, register_error_mapping


class ChampionshipInvalid(Exception):
    """A change refused, with translated messages per field; nothing was saved."""

    def __init__(self, details: Mapping[str, list[str]]) -> None:
        self.details = {k: [str(m) for m in v] for k, v in details.items()}
        super().__init__("; ".join(m for msgs in self.details.values() for m in msgs))


def _answer(exc: ChampionshipInvalid, request: Any) -> ApiError:
    return invalid(exc.details)


def register() -> None:
    """Answer `ChampionshipInvalid` with a 400 naming the fields (from the app's ready())."""
    register_error_mapping(ChampionshipInvalid, _answer)
