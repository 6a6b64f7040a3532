"""The scoring app's models, defined by its parts: rankings (snapshots, state) and documents."""

from __future__ import annotations

from scoring.documents.models import Document
from scoring.rankings.models import (
    ClubRatingSetting,
    PlayerRating,
    RankingSnapshot,
    RankingState,
    RatingState,
)

__all__ = [
    "ClubRatingSetting",
    "Document",
    "PlayerRating",
    "RankingSnapshot",
    "RankingState",
    "RatingState",
]
