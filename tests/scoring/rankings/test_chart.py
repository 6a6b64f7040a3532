"""The score card chart says in words what it shows, in the page's language and number format,
and shows each value on keyboard focus as well as on hover."""

from __future__ import annotations

import itertools
import re
from fractions import Fraction

import pytest
from django.urls import reverse
from django.utils import translation
from hypothesis import given
from hypothesis import strategies as st

from scoring.rankings.score_card_chart import score_card_chart
from scoring.rankings.svg import chart_trend, running_total_chart
from tests.scoring.rankings.helpers import enter, schedule
from tests.scoring.rankings.test_pages import get, player_of

POINTS = [("1", Fraction(3)), ("2", Fraction(-6)), ("3", Fraction(37, 2)), ("4", Fraction(12))]


def test_trend_names_first_last_and_extremes():
    trend = chart_trend(POINTS, recent=2)
    assert trend.first == ("1", 3.0) and trend.last == ("4", 12.0)
    assert trend.highest == ("3", 18.5) and trend.lowest == ("2", -6.0)
    assert trend.recent_span == 2 and trend.recent_change == 18.0


@given(st.lists(st.integers(-500, 500), min_size=1, max_size=40))
def test_trend_extremes_bound_every_point(values):
    trend = chart_trend([(str(i), v) for i, v in enumerate(values, start=1)])
    assert trend.lowest[1] == min(values) and trend.highest[1] == max(values)
    assert trend.recent_span == min(4, len(values) - 1)
    assert trend.recent_change == values[-1] - values[-1 - trend.recent_span]


def test_french_chart_uses_the_decimal_comma_and_describes_the_trend():
    with translation.override("fr"):
        chart, text = score_card_chart(POINTS, player="Zoé Mercier", matchpoints=False)
    assert "+18,5" in chart and "18.5" not in re.sub(r'(x|y|cx|cy|points)="[^"]*"', "", chart)
    assert text.startswith("De +3 après la donne 1 à +12 après la donne 4.")
    assert "Au plus haut +18,5 après la donne 3, au plus bas \u22126 après la donne 2." in text
    assert "En baisse de 6,5 sur la dernière donne." not in text  # over four donnes, not one
    assert "En hausse de 9 sur les 3 dernières donnes." in text
    assert chart.count('tabindex="0"') == 4  # each value reachable without a mouse
    assert 'aria-label="Donne 3 — +18,5"' in chart


def test_english_chart_of_match_points():
    with translation.override("en"):
        chart, text = score_card_chart(
            [("1", Fraction(50)), ("2", Fraction(125, 2))], player="Zoé Mercier", matchpoints=True
        )
    assert "Running average of Zoé Mercier" in chart and "62.5 %" in chart
    assert text.startswith("From 50 % after donne 1 to 62.5 % after donne 2.")
    assert "Up 12.5 over the last donne." in text


@pytest.mark.django_db
def test_the_score_card_page_shows_the_description(client, running_tournament, personas):
    t = running_tournament
    player = player_of(personas.player_user)
    for round_no, table, donne in schedule(t):
        if round_no == 1:
            enter(t, table, donne, personas.arbiter, points=35 + 3 * donne + 5 * table)
    url = reverse("score_card", args=[t.pk, player.pk])
    # the arbiter's view: round 1's donnes are not complete (the room's card has no line yet)
    get(client, url, personas.arbiter)
    html = client.get(url).content.decode()
    assert '<p class="chart-text">De ' in html and "Au plus haut" in html


@pytest.mark.parametrize("count", [1, 2, 5, 8, 12, 13, 16, 24, 32, 40])
def test_axis_labels_never_overlap_and_show_the_first_and_last_donne(count):
    points = [(f"Donne {n}", n * 10 - 80) for n in range(1, count + 1)]
    svg = str(running_total_chart(points, title="t"))
    # x positions of the labels under the axis (the grid values sit left of the plot)
    axis = [
        (float(x), text)
        for x, text in re.findall(
            r'<text class="chart-axis" x="([\d.]+)" y="182"[^>]*>([^<]*)<', svg
        )
    ]
    assert axis[0][1] == "Donne 1" and axis[-1][1] == f"Donne {count}"
    widest = max(len(text) for _, text in axis) * 6.6  # 11 px DejaVu Sans, about 0.6 em a letter
    for (x1, _), (x2, _) in itertools.pairwise(axis):
        assert x2 - x1 >= widest, (x1, x2)
