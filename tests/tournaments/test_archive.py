"""A tournament goes out as a versioned JSON archive and comes back whole: the ranking computed
from the imported results is the one computed before, and a failed import leaves nothing."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from scoring.models import RankingSnapshot
from scoring.rankings.services import ranking_recompute
from tournaments.models import LedgerEntry, Penalty, Player, Result, Tournament
from tournaments.services.archive import ARCHIVE_VERSION
from tournaments.services.penalties import penalty_give
from tournaments.services.preparation import tournament_verify

pytestmark = pytest.mark.django_db(transaction=True)


def ranking_rows(tournament: Tournament) -> dict:
    ranking_recompute(tournament_id=tournament.pk)
    return RankingSnapshot.objects.filter(tournament=tournament).latest("pk").data["rows"]


@pytest.fixture
def played(tmp_path) -> Tournament:
    call_command("load_demo", stdout=StringIO())
    tournament = Tournament.objects.get(name="Tournoi d'automne")
    arbiter = tournament.arbiters.get()
    donne = tournament.donnes.order_by("number").first()
    seat_player = Player.objects.get(pk=Result.objects.filter(donne=donne).first().holders["N"])
    penalty_give(
        tournament=tournament,
        player=seat_player,
        kind="other",
        points=20,
        reason="Commentaire",
        donne=donne,
        user=arbiter,
    )
    return tournament


def test_round_trip_gives_the_same_ranking_results_and_ledger(played, tmp_path):
    before = ranking_rows(played)
    counts = (
        Result.objects.filter(tournament=played).count(),
        Penalty.objects.filter(tournament=played).count(),
        LedgerEntry.objects.filter(tournament=played).count(),
    )
    commitment, identity, name = played.commitment, played.identity, played.name
    path = tmp_path / "archive.json"
    call_command("export_tournament", played.pk, output=str(path), stderr=StringIO())
    data = json.loads(path.read_text())
    assert data["version"] == ARCHIVE_VERSION and data["club"] == played.club.federation_number
    # Tournaments with results cannot be deleted (nothing accepted is ever lost): the archive
    # comes back beside the original, as it would on another instance.
    call_command("import_tournament", str(path), stdout=StringIO())
    again = Tournament.objects.filter(name=name).latest("pk")
    assert again.pk != played.pk
    assert (again.commitment, again.identity) == (commitment, identity)
    assert tournament_verify(tournament=again).ok  # the seed still deals these donnes
    assert (
        Result.objects.filter(tournament=again).count(),
        Penalty.objects.filter(tournament=again).count(),
        LedgerEntry.objects.filter(tournament=again).count(),
    ) == counts
    assert ranking_rows(again) == before


def test_a_failed_import_leaves_nothing_behind(played, tmp_path):
    out = StringIO()
    call_command("export_tournament", played.pk, stdout=out)
    data = json.loads(out.getvalue())
    data["parts"]["Result"][-1]["donne"] = 999_999  # a result of a donne not in the archive
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data))
    tournaments, results = Tournament.objects.count(), Result.objects.count()
    with pytest.raises(CommandError, match="not in the archive"):
        call_command("import_tournament", str(path), stdout=StringIO())
    assert (Tournament.objects.count(), Result.objects.count()) == (tournaments, results)
    data["version"] = 99
    path.write_text(json.dumps(data))
    with pytest.raises(CommandError, match="version 99"):
        call_command("import_tournament", str(path), stdout=StringIO())
    path.write_text("{not json")
    with pytest.raises(CommandError, match="Cannot read"):
        call_command("import_tournament", str(path), stdout=StringIO())
