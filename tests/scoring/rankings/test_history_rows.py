"""The lines of "Mon tarot" written in Python (`scoring.rankings.history_rows`) are the markup
the page's template wrote with its loops (the plain version, kept here): the same HTML, once
the whitespace between tags is set aside, for events under both methods, live and finished,
with and without a rating line, in both languages, signed in and through a personal link."""

from __future__ import annotations

import datetime
import re

import pytest
from django.template import engines
from django.utils import translation

from scoring.rankings.history_rows import history_rows
from scoring.rankings.player_history import history_lines
from scoring.rankings.player_views import history_chart
from scoring.rankings.rating import rating_recompute, rating_summary, with_rating
from scoring.rankings.services import ranking_recompute
from tests.scoring.rankings.builders import build_tournament, fill_results
from tests.scoring.rankings.test_club_season import share_players
from tournaments.models import Player, Tournament

pytestmark = pytest.mark.django_db

# The template's loops as they were (templates/scoring/mine.html before the rows moved to
# Python), with their blocks left out.
PLAIN_LINES = """{% load i18n rankings %}{% for line in lines %}
  <li class="card history-line" data-tournament="{{ line.tournament.pk }}">
    <p class="history-title"><strong>{{ line.tournament.name }}</strong>
      <span class="sub">{{ line.tournament.date|date:"SHORT_DATE_FORMAT" }} · {{ line.tournament.club.name }}{% if line.live %} · {% translate "in progress: complete donnes only" %}{% endif %}{% if not line.is_current and line.rank %} · {% translate "being updated" %}{% endif %}</span></p>
    <dl class="history-figures">
      <div><dt>{% translate "Rank" %}</dt><dd>{% if line.rank %}{% blocktranslate with rank=line.rank size=line.field_size %}{{ rank }} of {{ size }}{% endblocktranslate %}{% else %}—{% endif %}</dd></div>
      <div><dt>{% translate "Total" %}</dt><dd class="{% if not line.is_matchpoints %}{{ line.total|sign_class }}{% endif %}">{% if line.total is None %}—{% elif line.is_matchpoints %}{{ line.total|number }} %{% else %}{{ line.total|signed }}{% endif %}</dd></div>
      <div><dt>{% translate "Match points" %}</dt><dd>{% if line.percentage is not None %}{{ line.percentage|number }} %{% else %}<span class="muted" title="{% translate 'Not played under match points' %}">—</span>{% endif %}</dd></div>
      {% with r=rating|rating_line:line.tournament.pk %}{% if r %}
      <div><dt>{% translate "Indice" %}</dt><dd><span class="{{ r.change|sign_class }}">{{ r.change|signed_whole }}</span> <span class="muted">→ {{ r.rating_after|whole }}</span></dd></div>
      <div><dt>{% translate "Expected / scored" %}</dt><dd><span title="{% translate 'The percentage of games expected from the ratings of the field, and the percentage scored' %}">{{ r.expected|number }} % / {{ r.achieved|number }} %</span></dd></div>
      {% endif %}{% endwith %}
    </dl>
    {% if line.report_open %}<p class="history-links">{% if token %}<a href="{% url 'mine_link_report' token line.tournament.pk %}">{% translate "My report" %}</a>{% else %}<a href="{% url 'player_event_report' player.pk line.tournament.pk %}">{% translate "My report" %}</a>{% endif %}{% if not token %} · <a href="{% url 'score_card' line.tournament.pk player.pk %}">{% translate "Score card" %}</a>{% endif %}</p>{% endif %}
  </li>
{% endfor %}"""
PLAIN_CHART = """{% load i18n rankings %}{% for line in chart_lines %}<tr><td>{{ line.tournament.date|date:"SHORT_DATE_FORMAT" }}</td><td>{{ line.tournament.name }}</td><td class="num">{{ line.field_share|number }} %</td></tr>{% endfor %}"""


def plain(template: str, **context) -> str:
    return engines["django"].from_string(template).render(context)


def normalised(html: str) -> str:
    html = html.replace(' class=""', "")
    html = re.sub(r">\s+<", "><", html)
    return re.sub(r"\s+", " ", html).strip()


@pytest.fixture
def player():
    """A player in a published average event, a published match-point event (both rated)
    and a running one."""
    built = []
    for day, status, method in (
        (4, "published", "average"),
        (11, "published", "matchpoints"),
        (20, "running", "average"),
    ):
        b = build_tournament(
            players=8,
            status=status,
            method=method,
            date=datetime.date(2026, 10, day),
            seed=day,
            club=built[0].tournament.club if built else None,
        )
        if built:
            share_players(b, built[0].players)
        fill_results(b, seed=day, share=1.0 if status == "published" else 0.5)
        ranking_recompute(tournament_id=b.tournament.pk)
        built.append(b)
    rating_recompute()
    return with_rating(Player.objects.select_related("club")).get(pk=built[0].players[0].pk)


@pytest.mark.parametrize("language", ["fr", "en"])
@pytest.mark.parametrize("token", [None, "jeton"])
def test_the_rows_are_the_templates(player, language, token):
    with translation.override(language):
        lines = history_lines(player)
        assert {line.live for line in lines} == {True, False}
        assert {line.tournament.method for line in lines} == {"average", "matchpoints"}
        _chart, chart_lines = history_chart(lines, player)
        rating = rating_summary(player)
        assert rating.by_tournament  # some lines show the indice, the running one not
        rows, chart_rows = history_rows(
            lines, chart_lines, rating=rating, player_pk=player.pk, token=token
        )
        context = {"lines": lines, "rating": rating, "player": player, "token": token}
        assert normalised("".join(rows)) == normalised(plain(PLAIN_LINES, **context))
        assert "".join(chart_rows) == plain(PLAIN_CHART, chart_lines=chart_lines).split("%}", 1)[-1]


def test_names_are_escaped(player):
    Tournament.objects.filter(registrations__player=player).update(name="<b>Tournoi & co</b>")
    lines = history_lines(player)
    rows, chart_rows = history_rows(
        lines, lines, rating=rating_summary(player), player_pk=player.pk, token=None
    )
    assert "<b>" not in "".join(rows + chart_rows)
    assert "&lt;b&gt;Tournoi &amp; co&lt;/b&gt;" in rows[0]
