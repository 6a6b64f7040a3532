"""The hub's field pages of a simultaneous event: the embargo (organisers only, then
everybody), the overall ranking page by page with "find me", a club's players, a player's card
across the field, the donnes and each donne's traveller with its frequency sheet."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from django.urls import reverse
from django.utils import translation

from scoring.templatetags.rankings import signed
from tests.tournaments.simultaneous.hub.builders import played, player
from tests.tournaments.simultaneous.pages.builders import (
    bulk_ranking_rows,
    lift_embargo,
    make_field,
    small_field,
)
from tournaments.simultaneous.hub import reads
from tournaments.simultaneous.hub.models import FieldResult, OverallRankingRow

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


def field_urls(field) -> list[str]:
    event = field.event
    return [
        reverse("simultaneous_ranking", args=[event.public_id]),
        reverse("simultaneous_field_club", args=[event.public_id, field.clubs[0].public_id]),
        reverse("simultaneous_player", args=[event.public_id, field.licences[0]]),
        reverse("simultaneous_donnes", args=[event.public_id]),
        reverse("simultaneous_traveller", args=[event.public_id, 1]),
        reverse("simultaneous_ranking_csv", args=[event.public_id]),
        reverse("simultaneous_results_csv", args=[event.public_id]),
        reverse("simultaneous_booklet", args=[event.public_id]),
    ]


def get(client, url, user=None, **extra):
    client.logout()
    if user is not None:
        client.force_login(user)
    return client.get(url, **{**EN, **extra})


def ranking_url(field, **query) -> str:
    url = reverse("simultaneous_ranking", args=[field.event.public_id])
    return url + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def highlighted(html: str) -> list[str]:
    return re.findall(r'<tr id="p(\d+)" class="me"', html)


def test_under_embargo_only_the_organisers_read_the_field(client, field, people):
    assert not field.event.embargo_over
    for url in field_urls(field):
        anonymous = get(client, url)
        assert anonymous.status_code == 302 and "/login/" in anonymous["Location"], url
        assert get(client, url, people["stranger"]).status_code == 403, url
        assert get(client, url, people["organiser"]).status_code == 200, url


def test_after_the_embargo_everybody_reads_the_field(client, field, people):
    lift_embargo(field)
    for url in field_urls(field):
        assert get(client, url).status_code == 200, url
        assert get(client, url, people["stranger"]).status_code == 200, url


def test_unknown_event_donne_or_player_is_not_found(client, field, people):
    lift_embargo(field)
    public_id = field.event.public_id
    for url in (
        reverse("simultaneous_ranking", args=["nope"]),
        reverse("simultaneous_traveller", args=[public_id, field.event.donne_count + 1]),
        reverse("simultaneous_player", args=[public_id, "9999999"]),
        reverse("simultaneous_field_club", args=[public_id, "nope"]),
    ):
        assert get(client, url).status_code == 404, url


def test_the_overall_ranking_lists_the_field_in_french_by_default(client, field):
    lift_embargo(field)
    html = client.get(ranking_url(field)).content.decode()
    assert "Classement général" in html
    rows = OverallRankingRow.objects.filter(event=field.event).order_by("place")
    assert rows.count() == 12
    listed = re.findall(r'<tr id="p(\d+)"', html)
    assert listed == [row.licence for row in rows]
    assert "Club des Quatre Rois" in html and "Bruno Lefèvre" in html
    english = get(client, ranking_url(field)).content.decode()
    assert "Overall ranking" in english


def test_find_me_by_licence_or_name_highlights_the_player(client, field):
    lift_embargo(field)
    assert highlighted(get(client, ranking_url(field, q="2000005")).content.decode()) == ["2000005"]
    # accents and case ignored, as the site's player search
    assert highlighted(get(client, ranking_url(field, q="LEFEVRE")).content.decode()) == ["1000001"]
    several = get(client, ranking_url(field, q="Prénom")).content.decode()
    assert "Several players match" in several and highlighted(several) == []
    assert several.count("&amp;me=") == 8
    nobody = get(client, ranking_url(field, q="zzz")).content.decode()
    assert "Nobody in the ranking matches" in nobody


def test_pages_of_a_large_field_and_find_me_jumps_to_the_right_one(client, people):
    f = make_field(people["organiser"])
    bulk_ranking_rows(f.event, 250, clubs=3)
    lift_embargo(f)
    page3 = get(client, ranking_url(f, page=3)).content.decode()
    assert re.findall(r'<tr id="p(\d+)"', page3) == [f"{n:07d}" for n in range(201, 251)]
    assert 'aria-current="page">3<' in page3
    found = get(client, ranking_url(f, q="0000230")).content.decode()
    assert 'aria-current="page">3<' in found and highlighted(found) == ["0000230"]
    found = get(client, ranking_url(f, q="dupont-lefevre117")).content.decode()
    assert 'aria-current="page">2<' in found and highlighted(found) == ["0000117"]
    for bad in ("abc", "-4", "0"):
        first = get(client, ranking_url(f, page=bad)).content.decode()
        assert 'aria-current="page">1<' in first, bad
    last = get(client, ranking_url(f, page=999)).content.decode()
    assert 'aria-current="page">3<' in last


def test_a_page_of_twelve_thousand_players_stays_under_80_kb_on_the_wire(
    client, people, django_assert_max_num_queries
):
    f = make_field(people["organiser"])
    bulk_ranking_rows(f.event, 12_000)
    lift_embargo(f)
    client.logout()
    for query in ({}, {"page": 60}, {"q": "0011999"}, {"q": "Marie-Claude"}):
        with django_assert_max_num_queries(6):
            response = client.get(ranking_url(f, **query), HTTP_ACCEPT_ENCODING="gzip")
        assert response.status_code == 200
        assert response["Content-Encoding"] == "gzip"
        assert len(response.content) < 80_000, (query, len(response.content))
    assert highlighted(
        get(client, ranking_url(f, q="0011999"), HTTP_ACCEPT_ENCODING="identity").content.decode()
    ) == ["0011999"]


# Queries of each page for an anonymous reader after the embargo; a signed-in reader adds his
# session and his user. The player's page reads his row, his club's results as ranked and
# their groups' values in one snapshot (`reads.player_card`).
PAGE_QUERIES = [4, 6, 6, 3, 6]


def test_query_counts_do_not_grow_with_the_field(
    client, field, people, django_assert_max_num_queries
):
    lift_embargo(field)
    for url, queries in zip(field_urls(field), PAGE_QUERIES, strict=False):
        client.logout()
        with django_assert_max_num_queries(queries):
            assert client.get(url).status_code == 200
        client.force_login(people["organiser"])
        with django_assert_max_num_queries(queries + 2):
            assert client.get(url).status_code == 200


def test_a_club_page_lists_its_players_with_their_overall_rank(client, field):
    lift_embargo(field)
    club = field.clubs[0]
    html = get(
        client, reverse("simultaneous_field_club", args=[field.event.public_id, club.public_id])
    ).content.decode()
    listed = re.findall(r'<tr id="p(\d+)"', html)
    rows = OverallRankingRow.objects.filter(event=field.event, invitation=club).order_by("place")
    assert listed == [row.licence for row in rows] and len(listed) == 4
    for k, row in enumerate(rows, start=1):
        assert re.search(rf'<tr id="p{row.licence}"><td>{k}</td>', html)
        assert f'me={row.licence}#p{row.licence}">{row.rank}' in html
    assert "2000000" not in html


def test_a_players_card_shows_each_donne_across_the_field(client, field):
    lift_embargo(field)
    licence = field.licences[4]  # club B, table 1, North
    html = get(
        client, reverse("simultaneous_player", args=[field.event.public_id, licence])
    ).content.decode()
    row, card = reads.player_card(field.event, licence)
    donnes = re.findall(r'<tr data-donne="(\d+)" data-status="played">', html)
    assert [int(d) for d in donnes] == list(range(1, field.event.donne_count + 1))
    assert row.licence == licence and [line[0] for line in card] == [int(d) for d in donnes]
    for donne, position, club, table, score, diff, _pct, status, group in card:
        assert (group, position, club, table, status) == (
            3,
            "N",
            row.invitation.public_id,
            1,
            "played",
        )
        result = FieldResult.objects.get(invitation=field.clubs[1], table=1, donne=donne)
        assert result.scores["N"] == score
        line = re.search(rf'<tr data-donne="{donne}" .*?</tr>', html, re.S).group(0)
        with translation.override("en"):
            assert signed(score) in line and signed(Fraction(diff)) in line
    assert "=Tarot Club de Lyon" in html


def test_a_donne_traveller_counts_contracts_and_scores_across_the_field(client, people):
    f = small_field(people["organiser"], annul=True)
    lift_embargo(f)
    html = get(
        client, reverse("simultaneous_traveller", args=[f.event.public_id, 1])
    ).content.decode()
    # donne 1: club A plays prise (failed at 40 points, 1 bout), club B table 1 garde sans
    # (made: 45 with 2 bouts), club B table 2 annulled
    assert "2 tables of the field played it" in html and "1 annulled" in html
    contracts = re.findall(
        r'<tr data-contract="(\w+)" data-taker="N"><td>[^<]+</td><td>N</td>'
        r'<td class="num">(\d+)</td><td class="num">(\d+)</td><td class="num">(\d+)</td>',
        html,
    )
    assert sorted(contracts) == [("garde_sans", "1", "1", "0"), ("prise", "1", "0", "1")]
    north = html.split('data-position="N"')[1].split("</table>")[0]
    lines = re.findall(r'<td class="num">([+−]\d+)</td><td class="num">(\d+)</td>', north)
    played = FieldResult.objects.filter(event=f.event, donne=1, status="played")
    expected = sorted((r.scores["N"] for r in played), reverse=True)
    assert [(int(score.replace("−", "-")), int(n)) for score, n in lines] == [
        (score, 1) for score in expected
    ]
    # the annulled table is listed, without scores
    assert "Annulled" in html and html.count('<td class="num"><span class="sub hide-phone">') == 4


def test_english_through_the_sites_language_switch(client, field):
    lift_embargo(field)
    url = ranking_url(field)
    client.post(reverse("set_language"), {"language": "en", "next": url})
    html = client.get(url).content.decode()
    assert "Overall ranking" in html and "Find a player (name or licence)" in html


def test_a_new_upload_shows_the_stored_ranking_as_being_updated(client, field, people):
    client.force_login(people["organiser"])
    before = client.get(ranking_url(field), **EN).content.decode()
    assert 'data-state="current"' in before
    # club A sends a newer state (its donne 1 corrected); the ranking is not recomputed yet
    seats = field.licences[0:4]
    correction = played(1, 1, seats, contract="garde_contre", points="60", bouts=2, version=2)
    field.send(0, [correction], [player(lic) for lic in seats], sequence=2)
    after = client.get(ranking_url(field), **EN).content.decode()
    assert "The ranking is being updated" in after
    assert re.findall(r'<tr id="p(\d+)"', after) == re.findall(r'<tr id="p(\d+)"', before)


def test_match_points_pages_show_percentages(client, people):
    f = small_field(people["organiser"], method="matchpoints")
    lift_embargo(f)
    html = get(client, ranking_url(f)).content.decode()
    assert "Match points %" in html
    row = OverallRankingRow.objects.get(event=f.event, place=1)
    with translation.override("en"):
        from scoring.templatetags.rankings import number

        assert f"<td>{number(Fraction(row.total))}</td>" in html
    traveller = get(
        client, reverse("simultaneous_traveller", args=[f.event.public_id, 2])
    ).content.decode()
    # three tables at North: the best score has every match point (100 %)
    north = traveller.split('data-position="N"')[1].split("</table>")[0]
    assert re.search(r'<td class="num">100</td></tr>', north)
