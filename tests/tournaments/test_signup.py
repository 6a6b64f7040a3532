"""The way in for a club's first organiser (issue 31.6): the sign-up page, which the site's
owner can close (SIGNUP_OPEN), rate-limited per address (SIGNUP_RATE), translated; the
`create_organiser` command `make run` names; the simultaneous events reached from the
organiser's home; an arbiter account listed with the club's accounts as soon as it exists."""

from __future__ import annotations

import io
import random
import re

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client, override_settings
from django.urls import reverse

from tarot_club.management.commands.serve import Command as Serve
from tests.fixtures.tournaments import stage_tournament
from tournaments.models import Club

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
GOOD = {
    "username": "Nadia",
    "email": "nadia@example.org",
    "password1": "Une-phrase-longue-42",
    "password2": "Une-phrase-longue-42",
}


def _client() -> Client:
    """A client from an address of its own: the sign-up throttle counts per address."""
    return Client(REMOTE_ADDR=f"10.{random.randrange(256)}.{random.randrange(256)}.7")


def rates(**changed: str) -> override_settings:
    conf = dict(settings.REST_FRAMEWORK)
    conf["DEFAULT_THROTTLE_RATES"] = {**conf["DEFAULT_THROTTLE_RATES"], **changed}
    return override_settings(REST_FRAMEWORK=conf)


def test_a_newcomer_signs_up_is_logged_in_and_goes_on_to_create_his_club():
    client = _client()
    login = client.get(reverse("login")).content.decode()
    assert 'id="signup-link"' in login and reverse("signup") in login
    page = client.get(reverse("signup"))
    assert page.status_code == 200
    assert "Ouvrir un compte" in page.content.decode()  # French by default
    done = client.post(reverse("signup"), GOOD)
    assert done.status_code == 302 and done["Location"] == reverse("organiser_club_create")
    nadia = get_user_model().objects.get(username="Nadia")
    assert nadia.email == "nadia@example.org" and nadia.check_password(GOOD["password1"])
    assert client.session["_auth_user_id"] == str(nadia.pk)
    club = client.post(
        reverse("organiser_club_create"), {"name": "Tarot de Nadia", "federation_number": "0202"}
    )
    assert club.status_code == 302
    assert list(Club.objects.get(federation_number="0202").organisers.all()) == [nadia]
    # Signed in, the page sends her to her organiser's home.
    assert client.get(reverse("signup"))["Location"] == reverse("organiser_home")


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"password2": "autre-chose-42"}, "password2", "The two password fields didn"),
        ({"password1": "court", "password2": "court"}, "password2", "too short"),
        ({"username": "ORGA"}, "username", "already exists"),
        ({"username": "a b"}, "username", "Enter a valid username"),
        ({"email": "nadia@"}, "email", "valid email"),
    ],
)
def test_a_refused_sign_up_names_the_field_and_saves_nothing(personas, changes, field, message):
    before = get_user_model().objects.count()
    page = _client().post(reverse("signup"), {**GOOD, **changes}, **EN)
    body = page.content.decode()
    assert page.status_code == 422
    assert message in body and f'id="id_{field}_error"' in body
    assert get_user_model().objects.count() == before


def test_the_site_owner_closes_the_sign_up():
    client = _client()
    with override_settings(SIGNUP_OPEN=False):
        page = client.get(reverse("signup"))
        assert page.status_code == 403
        assert "create_organiser" in page.content.decode()
        assert client.post(reverse("signup"), GOOD).status_code == 403
        assert 'id="signup-link"' not in client.get(reverse("login")).content.decode()
    assert not get_user_model().objects.filter(username="Nadia").exists()


def test_sign_ups_are_rate_limited_per_address():
    client = _client()
    with rates(signup="2/hour"):
        for name in ("a", "b"):
            assert client.post(reverse("signup"), {**GOOD, "username": name}).status_code == 302
            client.logout()
        blocked = client.post(reverse("signup"), {**GOOD, "username": "c"}, **EN)
        assert blocked.status_code == 429 and int(blocked["Retry-After"]) > 0
        assert "Too many sign-ups from this address" in blocked.content.decode()
        assert not get_user_model().objects.filter(username="c").exists()
        # Another address is not held back.
        assert _client().post(reverse("signup"), {**GOOD, "username": "d"}).status_code == 302


def test_create_organiser_prints_a_one_time_link_that_opens_the_way(client):
    out = io.StringIO()
    call_command("create_organiser", "bruno", "--email", "b@example.org", stdout=out)
    bruno = get_user_model().objects.get(username="bruno")
    assert not bruno.has_usable_password() and bruno.email == "b@example.org"
    link = re.search(r"(http\S+/account/set-password/\S+)", out.getvalue()).group(1)
    path = link.split(settings.SITE_URL, 1)[1]
    form = client.get(path, follow=True)
    done = client.post(
        form.redirect_chain[-1][0],
        {"new_password1": "Une-phrase-longue-42", "new_password2": "Une-phrase-longue-42"},
    )
    assert done.status_code == 302
    assert client.login(username="bruno", password="Une-phrase-longue-42")
    home = client.get(reverse("organiser_home")).content.decode()
    assert reverse("organiser_club_create") in home
    with pytest.raises(CommandError, match="porte déjà ce nom"):
        call_command("create_organiser", "BRUNO", stdout=io.StringIO())
    with pytest.raises(CommandError, match="set a password already"):
        call_command("create_organiser", "bruno", "--link", stdout=io.StringIO())


def test_create_organiser_link_makes_a_new_link_for_an_account_not_yet_opened():
    call_command("create_organiser", "carla", stdout=io.StringIO())
    out = io.StringIO()
    call_command("create_organiser", "carla", "--link", stdout=out)
    assert "/account/set-password/" in out.getvalue()
    assert get_user_model().objects.filter(username="carla").count() == 1
    with pytest.raises(CommandError, match="No account"):
        call_command("create_organiser", "nobody", "--link", stdout=io.StringIO())


@pytest.mark.parametrize("signup_open", [True, False])
def test_make_run_names_the_way_in(signup_open):
    serve = Serve(stdout=io.StringIO())
    with override_settings(SIGNUP_OPEN=signup_open):
        serve._print_way_in("http://192.168.1.20:8000")
    printed = serve.stdout._out.getvalue()
    assert "manage.py create_organiser NAME" in printed
    assert ("http://192.168.1.20:8000/signup/" in printed) is signup_open


def test_an_arbiter_account_is_listed_with_the_club_as_soon_as_it_is_created(client, personas):
    tournament = stage_tournament(personas=personas)
    client.force_login(personas.organiser)
    url = reverse("organiser_club_accounts", args=[tournament.club_id])
    client.post(url, {"username": "lucie", "role": "arbiter"}, **EN)
    page = client.get(url, **EN).content.decode()
    rows = re.search(
        r'<table class="list reflow" id="club-accounts">.*?</table>', page, re.S
    ).group(0)
    assert "<td>lucie</td>" in rows and "arbiter, of no tournament yet" in rows
    # Another club's accounts do not list her.
    other = Club.objects.create(name="Autre club", federation_number="0999")
    other.organisers.add(personas.organiser)
    other_url = reverse("organiser_club_accounts", args=[other.pk])
    assert "lucie" not in client.get(other_url).content.decode()


def test_the_organiser_home_links_to_the_simultaneous_events(client, personas):
    stage_tournament(personas=personas)
    client.force_login(personas.organiser)
    home = client.get(reverse("organiser_home")).content.decode()
    assert f'href="{reverse("simultaneous_events")}"' in home
    assert "Simultanés" in home
