"""The documents' bulk reads agree with the pages' reads: a printed score card is the player's
score-card page, whoever is asked and whatever state the tournament is in. Both go through
`scoring.rankings.selectors.score_cards_from_snapshot`; these tests hold its two ways of reading (a few
players' keys, or the whole snapshot at once) to the same cards, in a fixed number of queries."""

from __future__ import annotations

from dataclasses import fields

import pytest

from scoring.documents.data import ranking_up_to_date, score_cards_bulk, tournament_players
from scoring.documents.models import Document
from scoring.documents.services import document_render
from scoring.rankings.selectors import CardScore, ScoreCardLine, score_card, score_cards
from tests.fixtures.tournaments import stage_tournament
from tournaments.models import Player, Result
from tournaments.services.results import result_annul

from .pdf import pdf_text
from .play import play_results

pytestmark = pytest.mark.django_db


def assert_same_cards(tournament) -> None:
    view = ranking_up_to_date(tournament)
    players = tournament_players(tournament)
    bulk = score_cards_bulk(tournament, players, snapshot_id=view.snapshot_id)
    assert set(bulk) == {p.pk for p in players}
    for player in players:
        one = score_card(tournament, player, can_manage=True)
        assert bulk[player.pk] == one, player
        # Lines and scores are built without their constructors (selectors._frozen): each
        # equals what its constructor makes of its fields, and none is missing.
        for line in one.lines:
            assert ScoreCardLine(**{f.name: getattr(line, f.name) for f in fields(line)}) == line
            for s in line.scores:
                assert CardScore(s.position, s.score, s.mine) == s
    # A player's own view and a stranger's (lines of unfinished donnes hidden), all at once.
    me = players[0].pk
    everyone = score_cards(tournament, can_manage=False, viewer_player_id=me)
    assert list(everyone) == [p.pk for p in players]
    for player in players:
        one = score_card(tournament, player, can_manage=False, viewer_player_id=me)
        assert everyone[player.pk] == one, player


def test_bulk_score_cards_read_a_fixed_number_of_queries(personas, django_assert_max_num_queries):
    tournament = stage_tournament(players=12, rounds=2, personas=personas)
    play_results(tournament, personas.arbiter, rounds={1})
    tournament.refresh_from_db()
    view = ranking_up_to_date(tournament)
    players = tournament_players(tournament)
    with django_assert_max_num_queries(5):  # snapshot, its cards, seats, donnes, results
        cards = score_cards_bulk(tournament, players, snapshot_id=view.snapshot_id)
    assert len(cards) == len(players)
    with django_assert_max_num_queries(9):  # and the players, the three of complete_donnes
        cards = score_cards(tournament, can_manage=False)
    assert len(cards) == len(players)


def test_bulk_score_cards_equal_the_pages_cards_midway_with_an_annulment(personas):
    tournament = stage_tournament(players=9, rounds=2, personas=personas)
    play_results(tournament, personas.arbiter, rounds={1})
    result = Result.objects.filter(tournament=tournament).order_by("pk").first()
    result_annul(
        tournament=tournament,
        table=result.table,
        donne=result.donne,
        user=personas.arbiter,
        reason="Étui mélangé",
        expected_version=result.version,
    )
    tournament.refresh_from_db()
    assert_same_cards(tournament)
    statuses = {
        line.status
        for card in score_cards_bulk(
            tournament,
            tournament_players(tournament),
            snapshot_id=ranking_up_to_date(tournament).snapshot_id,
        ).values()
        for line in card.lines
    }
    assert {"played", "annulled", "sat_out", "pending"} <= statuses


def test_bulk_score_cards_equal_the_pages_cards_under_match_points(personas):
    tournament = stage_tournament(players=8, rounds=2, personas=personas, method="matchpoints")
    play_results(tournament, personas.arbiter)
    tournament.refresh_from_db()
    assert_same_cards(tournament)


def test_bulk_score_cards_before_any_result(personas):
    tournament = stage_tournament(players=8, rounds=1, personas=personas)
    assert_same_cards(tournament)


@pytest.mark.parametrize(
    "kind", [Document.Kind.CHECK_IN_LIST, Document.Kind.ROUTE_CARDS, Document.Kind.SCORE_CARDS]
)
def test_lists_by_name_file_accents_and_particles_where_a_reader_looks(personas, kind):
    """By name as a reader looks: "Étienne" between "Dupont" and "Fabre", "de La Tour" under
    D; a binary collation (SQLite, PostgreSQL's C locale) would put both after "Zola"."""
    tournament = stage_tournament(players=8, rounds=1, personas=personas)
    names = ["Zola", "Étienne", "de La Tour", "Fabre", "Dupont", "Abel", "Martin", "Ubu"]
    players = list(Player.objects.filter(registrations__tournament=tournament).order_by("pk"))
    for player, name in zip(players, names, strict=True):
        player.last_name = name
    Player.objects.bulk_update(players, ["last_name"])
    document = Document(tournament=tournament, kind=kind, language="fr")
    text = pdf_text(document_render(document)[0][2])
    found = sorted(names, key=text.index)
    assert found == ["Abel", "de La Tour", "Dupont", "Étienne", "Fabre", "Martin", "Ubu", "Zola"]
