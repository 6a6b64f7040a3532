"""The score cards print each player's live personal link as a QR code (issue 35): a file of
several players' cards holding links goes to the tournament's managers only, else anyone
who may download the published score cards would open every player's reports."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.urls import reverse
from django.utils import timezone

from scoring.documents.models import Document
from scoring.documents.services import DocumentAccess
from tests.scoring.rankings.builders import build_tournament
from tournaments.services.player_links import player_link_issue, player_link_revoke

pytestmark = pytest.mark.django_db


def built_cards(tournament, *, part=0, finished_at=None):
    document = Document.objects.create(
        tournament=tournament,
        kind=Document.Kind.SCORE_CARDS,
        language="fr",
        part=part,
        status=Document.Status.DONE,
        finished_at=finished_at or timezone.now(),
    )
    document.file.save("cartes.pdf", ContentFile(b"%PDF-1.4 test"), save=True)
    return document


def test_score_cards_with_links_go_to_the_managers_only(client):
    users = get_user_model().objects
    built = build_tournament(players=8, status="published", seed=51)
    t = built.tournament
    organiser, me = users.create_user("orga-qr"), users.create_user("me-qr")
    t.club.organisers.add(organiser)
    player = built.players[0]
    player.user = me
    player.save(update_fields=["user"])
    before = built_cards(t, finished_at=timezone.now() - datetime.timedelta(days=1))
    link = player_link_issue(player=player, user=organiser)
    after = built_cards(t)
    own = built_cards(t, part=player.pk)

    def status(document, user=None):
        client.logout()
        if user is not None:
            client.force_login(user)
        return client.get(reverse("document_download", args=[t.pk, document.pk])).status_code

    assert status(before) == 200  # built before any link: no link in it
    assert status(after) in (302, 403) and status(after, me) == 403
    assert status(after, organiser) == 200
    assert status(own, me) == 200  # his own card: his own link only
    api = reverse("api_document_download", args=[t.pk, after.pk])
    client.logout()
    assert client.get(api).status_code in (401, 403)
    rows = DocumentAccess.of(me, t)
    assert rows.prints_others_links(after) and not rows.prints_others_links(own)
    player_link_revoke(player=player, user=organiser)
    assert link.token and status(after) == 200  # the printed link opens nothing any more
