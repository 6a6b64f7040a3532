"""The scoring app's models, defined by its parts: rankings (snapshots, state) and documents."""

from __future__ import annotations

from scoring.documents.models import Document
from scoring.rankings.models import RankingSnapshot, RankingState

__all__ = ["Document", "RankingSnapshot", "RankingState"]
