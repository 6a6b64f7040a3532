"""The documents pages: who may build and download what (personas), the progress shown while a
build runs, the download itself, and the tournament page's section."""

from __future__ import annotations

import pytest
from django.core.files.base import ContentFile
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from scoring.documents.fingerprint import document_fingerprint
from scoring.documents.models import Document
from scoring.documents.services import WHOLE_SET
from tests.fixtures.tournaments import Personas
from tournaments.models import Player, Tournament

pytestmark = pytest.mark.django_db

Kind = Document.Kind
Status = Document.Status


def client_for(personas: Personas, who: str) -> Client:
    client = Client()
    if who != "anonymous":
        client.force_login(getattr(personas, who))
    return client


def finished(tournament: Tournament, kind: str, *, part: int = 0, language: str = "en") -> Document:
    """A finished document as the build leaves it (file stored, versions recorded)."""
    document = Document(
        tournament=tournament,
        kind=kind,
        part=part,
        language=language,
        status=Status.DONE,
        progress=100,
        pages=1,
        results_version=tournament.results_version,
        fingerprint=document_fingerprint(tournament, kind, language),
        finished_at=timezone.now(),
    )
    document.file.save(f"{kind}.pdf", ContentFile(b"%PDF-1.4 test document"), save=False)
    document.save()
    return document


def own_player(tournament: Tournament, personas: Personas) -> Player:
    return Player.objects.get(user=personas.player_user)


def other_player(tournament: Tournament, personas: Personas) -> Player:
    return (
        Player.objects.filter(registrations__tournament=tournament)
        .exclude(user=personas.player_user)
        .first()
    )


# who → (hand records, ranking, own score card, another's score card): may download?
RUNNING = {
    "organiser": (True, True, True, True),
    "arbiter": (True, True, True, True),
    "other_arbiter": (False, False, False, False),
    "player_user": (False, False, True, False),
    "stranger": (False, False, False, False),
    "anonymous": (False, False, False, False),
}
PUBLISHED = {
    "organiser": (True, True, True, True),
    "arbiter": (True, True, True, True),
    "other_arbiter": (False, True, True, True),
    "player_user": (False, True, True, True),
    "stranger": (False, True, True, True),
    "anonymous": (False, True, True, True),
}


@pytest.mark.parametrize("status", ["running", "published"])
def test_download_permissions(played_tournament, personas, status):
    Tournament.objects.filter(pk=played_tournament.pk).update(status=status)
    played_tournament.refresh_from_db()
    documents = [
        finished(played_tournament, Kind.HAND_RECORDS),
        finished(played_tournament, Kind.RANKING),
        finished(
            played_tournament, Kind.SCORE_CARDS, part=own_player(played_tournament, personas).pk
        ),
        finished(
            played_tournament, Kind.SCORE_CARDS, part=other_player(played_tournament, personas).pk
        ),
    ]
    matrix = RUNNING if status == "running" else PUBLISHED
    for who, expected in matrix.items():
        client = client_for(personas, who)
        for document, allowed in zip(documents, expected, strict=True):
            url = reverse("document_download", args=[played_tournament.pk, document.pk])
            response = client.get(url)
            case = (status, who, document.kind, document.part)
            if allowed:
                assert response.status_code == 200, case
                assert response["Content-Type"] == "application/pdf", case
                assert b"".join(response.streaming_content).startswith(b"%PDF"), case
            elif who == "anonymous":
                assert response.status_code == 302 and "/login/" in response["Location"], case
            else:
                assert response.status_code == 403, case


@pytest.mark.parametrize(
    ("who", "kind", "own", "allowed"),
    [
        ("organiser", Kind.ROUTE_CARDS, False, True),
        ("arbiter", Kind.SCORE_SHEETS, False, True),
        ("other_arbiter", Kind.HAND_RECORDS, False, False),
        ("player_user", Kind.SCORE_CARDS, True, True),
        ("player_user", Kind.SCORE_CARDS, False, False),
        ("player_user", Kind.RANKING, False, False),
        ("stranger", Kind.RANKING, False, False),
        ("anonymous", Kind.RANKING, False, False),
    ],
)
def test_who_may_ask_for_a_build(
    played_tournament, personas, django_capture_on_commit_callbacks, who, kind, own, allowed
):
    part = own_player(played_tournament, personas).pk if own else 0
    if kind == Kind.SCORE_CARDS and not own:
        part = other_player(played_tournament, personas).pk
    client = client_for(personas, who)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("document_request", args=[played_tournament.pk]),
            {"kind": kind, "part": part, "language": "en"},
        )
    if allowed:
        assert response.status_code == 302
        document = Document.objects.get(tournament=played_tournament, kind=kind, part=part)
        assert document.status == Status.DONE
    else:
        assert response.status_code in (302, 403)
        if who == "anonymous":
            assert "/login/" in response["Location"]
        else:
            assert response.status_code == 403
        assert not Document.objects.exists()


def test_anonymous_and_strangers_cannot_build_everything(played_tournament, personas):
    for who, code in (("anonymous", 302), ("stranger", 403), ("player_user", 403)):
        response = client_for(personas, who).post(
            reverse("document_request_all", args=[played_tournament.pk]), {"language": "fr"}
        )
        assert response.status_code == code
    assert not Document.objects.exists()


def test_build_everything_from_the_page(
    played_tournament, personas, django_capture_on_commit_callbacks
):
    client = client_for(personas, "organiser")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("document_request_all", args=[played_tournament.pk]), {"language": "en"}
        )
    assert response.status_code == 302
    assert Document.objects.filter(status=Status.DONE, language="en").count() == len(WHOLE_SET)
    page = client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="en")
    html = page.content.decode()
    assert html.count('data-state="done"') == len(WHOLE_SET)
    for document in Document.objects.all():
        assert reverse("document_download", args=[played_tournament.pk, document.pk]) in html


def test_the_page_shows_progress_and_polls_while_a_build_runs(played_tournament, personas):
    running = Document.objects.create(
        tournament=played_tournament,
        kind=Kind.SCORE_CARDS,
        language="en",
        status=Status.RUNNING,
        progress=40,
        heartbeat_at=timezone.now(),
    )
    client = client_for(personas, "arbiter")
    html = client.get(
        reverse("documents", args=[played_tournament.pk]) + "?lang=en", HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    status_url = reverse("document_status", args=[played_tournament.pk, running.pk])
    assert f'hx-get="{status_url}"' in html
    assert 'hx-trigger="every 1s"' in html
    assert '<progress max="100" value="40"' in html
    assert "Being built" in html

    # The fragment htmx polls: still running, then finished with its download link.
    fragment = client.get(status_url, HTTP_ACCEPT_LANGUAGE="en", HTTP_HX_REQUEST="true")
    assert fragment.status_code == 200
    assert 'value="40"' in fragment.content.decode()
    Document.objects.filter(pk=running.pk).update(status=Status.DONE, progress=100)
    running.refresh_from_db()
    running.file.save("cards.pdf", ContentFile(b"%PDF-1.4"), save=True)
    Document.objects.filter(pk=running.pk).update(
        results_version=played_tournament.results_version,
        fingerprint=document_fingerprint(played_tournament, running.kind, running.language),
        finished_at=timezone.now(),
    )
    done = client.get(
        status_url, HTTP_ACCEPT_LANGUAGE="en", HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "hx-trigger" not in done
    assert reverse("document_download", args=[played_tournament.pk, running.pk]) in done
    assert 'data-state="done"' in done


def test_htmx_request_returns_the_row(
    played_tournament, personas, django_capture_on_commit_callbacks
):
    client = client_for(personas, "arbiter")
    with django_capture_on_commit_callbacks(execute=False):
        response = client.post(
            reverse("document_request", args=[played_tournament.pk]),
            {"kind": Kind.DONNE_RESULTS, "part": 0, "language": "en"},
            HTTP_HX_REQUEST="true",
            HTTP_ACCEPT_LANGUAGE="en",
        )
    html = response.content.decode()
    assert response.status_code == 200
    assert html.startswith("<tr") and 'data-state="pending"' in html
    assert "hx-get=" in html


def test_a_bad_request_is_explained(played_tournament, personas):
    client = client_for(personas, "arbiter")
    response = client.post(
        reverse("document_request", args=[played_tournament.pk]),
        {"kind": Kind.HAND_RECORDS, "part": 12, "language": "en"},
        HTTP_ACCEPT_LANGUAGE="en",
        follow=True,
    )
    assert "This tournament has no étui set 12." in response.content.decode()
    response = client.post(
        reverse("document_request", args=[played_tournament.pk]),
        {"kind": Kind.HAND_RECORDS, "part": "two", "language": "en"},
        HTTP_ACCEPT_LANGUAGE="en",
        follow=True,
    )
    assert "must be a whole number" in response.content.decode()
    assert not Document.objects.exists()


def test_an_out_of_date_document_is_marked_on_the_page(played_tournament, personas):
    finished(played_tournament, Kind.RANKING)
    Tournament.objects.filter(pk=played_tournament.pk).update(
        results_version=played_tournament.results_version + 1
    )
    html = (
        client_for(personas, "arbiter")
        .get(
            reverse("documents", args=[played_tournament.pk]) + "?lang=en",
            HTTP_ACCEPT_LANGUAGE="en",
        )
        .content.decode()
    )
    assert 'data-kind="ranking" data-part="0"' in html
    row = html[html.index('data-kind="ranking"') :]
    row = row[: row.index("</tr>")]
    assert "Out of date" in row and "Build again" in row


def test_players_see_their_own_score_card_and_the_public_the_published_ones(
    played_tournament, personas
):
    url = reverse("documents", args=[played_tournament.pk]) + "?lang=en"
    html = client_for(personas, "player_user").get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    me = own_player(played_tournament, personas)
    assert f'data-kind="score_cards" data-part="{me.pk}"' in html
    assert 'data-kind="hand_records"' not in html
    assert "My score card" in html
    # A stranger sees nothing yet; an anonymous visitor is asked to log in.
    html = client_for(personas, "stranger").get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "data-kind" not in html
    assert client_for(personas, "anonymous").get(url).status_code == 302
    # Published: the public documents appear for everyone.
    Tournament.objects.filter(pk=played_tournament.pk).update(status="published")
    finished(played_tournament, Kind.RANKING)
    html = client_for(personas, "anonymous").get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'data-kind="ranking"' in html and "Download" in html
    assert 'data-kind="route_cards"' not in html
    assert "Build" not in html.replace("Build again", "").split("<footer")[0].split("<main")[1]


def test_documents_page_runs_a_bounded_number_of_queries(
    played_tournament, personas, django_assert_max_num_queries
):
    for kind in (Kind.HAND_RECORDS, Kind.RANKING, Kind.SCORE_CARDS):
        finished(played_tournament, kind)
    for part in (1, 2):
        finished(played_tournament, Kind.HAND_RECORDS, part=part)
    client = client_for(personas, "organiser")
    url = reverse("documents", args=[played_tournament.pk]) + "?lang=en"
    # 21: the score cards' fingerprint reads the players' personal links too (their QR codes
    # are printed on the cards), one query for every player of the tournament.
    with django_assert_max_num_queries(21):
        assert client.get(url).status_code == 200


def test_the_tournament_page_links_to_the_documents(played_tournament, personas):
    Tournament.objects.filter(pk=played_tournament.pk).update(public_during_play=False)
    url = reverse("tournament_detail", args=[played_tournament.pk])
    documents = reverse("documents", args=[played_tournament.pk])
    html = client_for(personas, "arbiter").get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f'href="{documents}"' in html and "Printed documents" in html
    html = client_for(personas, "stranger").get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f'href="{documents}"' not in html


def test_a_replaced_document_is_gone(played_tournament, personas):
    client = client_for(personas, "arbiter")
    assert (
        client.get(reverse("document_download", args=[played_tournament.pk, 424242])).status_code
        == 404
    )
