"""French as French players write it: decimal comma, N E S O, suit symbols with their names."""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

import pytest
from django.urls import reverse
from django.utils import translation

from scoring.rankings.selectors import hand_view
from scoring.rankings.svg import running_total_chart
from scoring.templatetags.rankings import number, position_letter, signed
from tests.scoring.rankings.helpers import enter, tables_playing
from tournaments.services.results import result_describe


def test_the_ranking_filters_write_a_decimal_comma_in_french():
    with translation.override("fr"):
        assert number(Fraction(81, 2)) == "40,5"
        assert signed(Fraction(25, 2)) == "+12,5"
        assert position_letter("W") == "O"
    with translation.override("en"):
        assert number(Fraction(81, 2)) == "40.5"
        assert signed(Decimal("-3.25")) == "\u22123.25"
        assert position_letter("W") == "W"


def test_the_chart_of_a_score_card_writes_a_decimal_comma_in_french():
    with translation.override("fr"):
        svg = running_total_chart([("D1", Fraction(5, 2)), ("D2", Fraction(-3, 2))], title="t")
    assert "+2,5" in svg and "\u22121,5" in svg and "2.5" not in svg


def test_hands_read_with_the_ranks_of_the_language_and_suit_names():
    text = "S:R D C V 1 H:- D:R C:V T:21 EX"
    with translation.override("fr"):
        view = hand_view("N", "Nord", text)
        assert view.suits[0].cards == ["R", "D", "C", "V", "1"]
        assert [s.name for s in view.suits] == ["pique", "cœur", "carreau", "trèfle"]
    with translation.override("en"):
        view = hand_view("N", "North", text)
        assert view.suits[0].cards == ["K", "Q", "C", "J", "1"]
        assert view.suits[3].cards == ["J"] and view.suits[3].name == "clubs"


def test_the_ledger_line_reads_in_french():
    snapshot = {
        "status": "played",
        "taker": "W",
        "contract": "garde",
        "bouts": 2,
        "points": "40.5",
        "scores": {"N": 52, "E": 52, "S": 52, "W": -156},
    }
    with translation.override("fr"):
        line = result_describe(snapshot)
    assert "40,5 points" in line and "O −156" in line and "W" not in line


@pytest.mark.django_db
def test_the_traveller_heads_its_columns_n_e_s_o(client, running_tournament, personas):
    t = running_tournament
    for table in tables_playing(t, 1):
        enter(t, table, 1, personas.arbiter)
    html = client.get(reverse("traveller", args=[t.pk, 1])).content.decode()
    assert '<th scope="col" class="num">O</th>' in html
    assert '<th scope="col" class="num">W</th>' not in html
    # the distribution of scores under the table reads N E S O too
    bars = html.split('class="bars card"')[1].split("</ul>")[0]
    assert "· O " in bars and "· W " not in bars
    assert "\u202f: N " in bars and not re.search(r"\S: N ", bars)  # French spaces the ":"


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["fr", "en"])
def test_negative_numbers_read_with_a_minus_sign(client, running_tournament, personas, language):
    """The ranking, the traveller and the arbiter's preview write "−68", never "-68"."""
    t = running_tournament
    for table, points in zip(tables_playing(t, 1), (30, 60), strict=False):
        enter(t, table, 1, personas.arbiter, contract="garde", points=points)  # fails, made
    from scoring.rankings.services import ranking_recompute

    ranking_recompute(tournament_id=t.pk)
    client.force_login(personas.arbiter)
    lang = {"HTTP_ACCEPT_LANGUAGE": language}
    for page in (reverse("ranking", args=[t.pk]), reverse("traveller", args=[t.pk, 1])):
        html = client.get(page, **lang).content.decode()
        assert "\u2212" in html, page
        assert not re.search(r">\s*-\d|[ (]-\d+[,.]?\d*\s*<", html), page
    table = tables_playing(t, 1)[0]
    preview = client.get(reverse("arbiter_result", args=[t.pk, table, 1]), **lang).content.decode()
    assert re.search(r"data-score>\u2212\d+<", preview)
    assert not re.search(r"data-score>-\d", preview)
