"""The championships' Celery entry point: the task of the championship ranking's subject
(`ranking.CHAMPIONSHIP`; scheduling, coalescing and the sweep are the derived-ranking
mechanism's, the computation `ranking.championship_recompute`)."""

from __future__ import annotations

from .ranking import CHAMPIONSHIP

# `championships.recompute`: compute and store a championship's ranking.
recompute_championship = CHAMPIONSHIP.task
