"""Rankings' stored rows: each tournament's ranking snapshots and the bookkeeping of its computation."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from scoring.rankings.fields import CardLinesField
from scoring.rankings.state import DerivedState


class RankingSnapshot(models.Model):
    """A tournament's ranking as computed from `results_version` of its results.

    Pages show the latest snapshot for the tournament's current method and rate, and say
    "being updated" while the tournament's results_version is newer than the snapshot's.

    `data` holds the ranking rows, keyed "p<player id>" (jsonb does not keep key order, and a
    numeric key would be read as an array index): [rank, total, differential total, penalty
    points, donnes played, donnes compared], exact numbers as Fraction strings ("45/2").
    `data["room"]` is what the room sees during play (RULES §6.1): "donnes", the tournament's
    number of donnes; "complete", the ids of the donnes every scheduled table had a result
    for; "rows", the rows counting those donnes alone, left out when they are `rows` (every
    donne with a result complete). A snapshot without it is shown to the room as empty.
    `cards` holds each player's per-donne lines, keyed the same way, so a score card reads one
    key instead of the whole tournament: [donne id, position, table id, score, differential,
    percentage, status, group size]; each player's lines are stored as one JSON text
    (`CardLinesField`, cheaper for the database to take in) and read back as lists.
    """

    tournament = models.ForeignKey(
        "tournaments.Tournament", on_delete=models.CASCADE, related_name="ranking_snapshots"
    )
    results_version = models.PositiveBigIntegerField()
    method = models.CharField(max_length=12)
    matchpoint_penalty_rate = models.DecimalField(max_digits=6, decimal_places=3, default="0.1")
    computed_at = models.DateTimeField(auto_now_add=True)
    computed_in = models.CharField(max_length=200, blank=True)
    duration_ms = models.PositiveIntegerField(default=0)
    data = models.JSONField(default=dict)
    cards = CardLinesField(default=dict)

    class Meta:
        ordering = ["-results_version", "-pk"]
        get_latest_by = "results_version"
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "results_version", "method", "matchpoint_penalty_rate"],
                name="unique_snapshot_version",
            )
        ]
        indexes = [models.Index(fields=["tournament", "method", "-results_version"])]
        verbose_name = _("ranking snapshot")
        verbose_name_plural = _("ranking snapshots")

    def __str__(self) -> str:
        return f"{self.tournament_id} v{self.results_version} {self.method}"


class RankingState(DerivedState):
    """Per-tournament bookkeeping of the ranking computation (`DerivedState`: the tournament
    ranking is a subject of the derived-ranking mechanism, scoring.rankings.derived).

    - `queued_at`: a task is in the queue and has not started; later changes need no new task
      (it will read the newest version when it starts). A claim older than a timeout is void.
    - `started_at`: when the last computation started; spaces computations out (coalescing).
    - `stale_since`: the first change not yet in a snapshot; pages compute in-process when the
      workers have not caught up after RANKING_STALE_AFTER seconds.
    """

    tournament = models.OneToOneField(
        "tournaments.Tournament",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="ranking_state",
    )

    class Meta:
        verbose_name = _("ranking state")
        verbose_name_plural = _("ranking states")

    def __str__(self) -> str:
        return f"{self.tournament_id}: {self.computations} computations"


class ClubSeason(DerivedState):
    """A club's season ranking over a date range under one method, stored (a subject of the
    derived-ranking mechanism: `scoring.rankings.season.CLUB_SEASON`), created on the first
    read of its (club, start, end, method).

    - `rows`: the lines, `scoring.rules.season.SeasonRow` as encoded by
      `scoring.rankings.rows.season_rows_encode`, highest total first;
    - `counted`: the snapshots they were computed from, {"<tournament id>": results
      version}: a read compares it with the tournaments' current snapshots, so it never shows
      lines that miss a snapshot (None: never computed).
    """

    club = models.ForeignKey(
        "tournaments.Club", on_delete=models.CASCADE, related_name="season_rankings"
    )
    start = models.DateField()
    end = models.DateField()
    method = models.CharField(max_length=12)
    rows = models.JSONField(default=list)
    counted = models.JSONField(null=True, blank=True)
    computed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["club", "start", "end", "method"], name="unique_club_season"
            )
        ]
        verbose_name = _("club season ranking")
        verbose_name_plural = _("club season rankings")

    def __str__(self) -> str:
        return f"{self.club_id} {self.start}..{self.end} {self.method}"


class RatingState(DerivedState):
    """The site's player rating ("indice", docs/RATING.md) as a subject of the
    derived-ranking mechanism (`scoring.rankings.rating.PLAYER_RATING`): one row (pk 1),
    since every event's ratings depend on all the events before it.

    `counted`: the snapshots the stored ratings were computed from, {"<tournament id>":
    [results version, date as ISO text]} (None: never computed); a computation that finds the
    same stores nothing (a date moved is a change: events are rated in date order). `players`: how many players it rated.
    """

    counted = models.JSONField(null=True, blank=True)
    computed_at = models.DateTimeField(null=True, blank=True)
    players = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = _("rating state")
        verbose_name_plural = _("rating states")

    def __str__(self) -> str:
        return f"rating: {self.players} players, {self.computations} computations"


class PlayerRating(models.Model):
    """A player's current rating, from `scoring.rules.rating.compute_ratings`, and his
    line per counted event in date order (`history`, as `scoring.rankings.rating.
    history_encode` writes it: [tournament id, rating before, deviation before, rating
    after, deviation after, games, expected %, achieved %])."""

    player = models.OneToOneField(
        "tournaments.Player", on_delete=models.CASCADE, primary_key=True, related_name="rating"
    )
    rating = models.FloatField()
    deviation = models.FloatField()
    volatility = models.FloatField()
    events = models.PositiveIntegerField()
    games = models.PositiveIntegerField()
    last_date = models.DateField()
    history = models.JSONField(default=list)

    class Meta:
        verbose_name = _("player rating")
        verbose_name_plural = _("player ratings")

    def __str__(self) -> str:
        return f"{self.player_id}: {self.rating:.0f} ± {self.deviation:.0f}"


class ClubRatingSetting(models.Model):
    """A club's switch for the rating: off, its tournaments are not counted and its players'
    ratings are shown nowhere (no row: on). Its organisers set it."""

    club = models.OneToOneField(
        "tournaments.Club", on_delete=models.CASCADE, primary_key=True, related_name="rating"
    )
    enabled = models.BooleanField(_("rating shown"), default=True)

    class Meta:
        verbose_name = _("club rating setting")
        verbose_name_plural = _("club rating settings")

    def __str__(self) -> str:
        return f"{self.club_id}: {'on' if self.enabled else 'off'}"
