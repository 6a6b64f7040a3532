"""Organiser screens through the test client: the permission matrix (every persona × every
organiser URL × GET and POST) and what each screen does."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from tests.fixtures.tournaments import Personas, make_players, stage_tournament
from tournaments.models import Club, Player, Registration, Seat, Tournament

pytestmark = pytest.mark.django_db
Status = Tournament.Status
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
PERSONAS = ("organiser", "arbiter", "other_arbiter", "player_user", "stranger", "anonymous")


@dataclass
class Scene:
    tournament: Tournament
    club: Club
    personas: Personas
    player: Player  # registered late: not checked in, not seated
    outsider: Player  # of the club, not registered

    def user(self, persona: str) -> Any:
        return None if persona == "anonymous" else getattr(self.personas, persona)


@pytest.fixture
def scene(personas) -> Scene:
    """A tournament open for registration, its 8 checked-in players seated, plus a ninth
    player registered but not yet there, and a player of the club not registered."""
    tournament = stage_tournament(players=8, status=Status.REGISTRATION, personas=personas)
    late, outsider = make_players(tournament.club, 2, start=300)
    Registration.objects.create(tournament=tournament, player=late)
    return Scene(tournament, tournament.club, personas, late, outsider)


def snapshot(scene: Scene) -> dict[str, Any]:
    """Everything an organiser screen could change."""
    tournament = Tournament.objects.get(pk=scene.tournament.pk)
    return {
        "tournaments": list(
            Tournament.objects.order_by("pk").values_list(
                "pk", "name", "status", "rounds", "method", "commitment", "seed_revealed_at"
            )
        ),
        "arbiters": list(tournament.arbiters.values_list("pk", flat=True)),
        "players": list(
            Player.objects.order_by("pk").values_list("licence", "last_name", "first_name")
        ),
        "registrations": list(
            Registration.objects.order_by("pk").values_list("player_id", "checked_in_at")
        ),
        "seats": list(
            Seat.objects.filter(round__tournament=tournament)
            .order_by("pk")
            .values_list("pk", "player_id", "position")
        ),
    }


@dataclass
class Screen:
    name: str
    kind: str  # "home", "club", "create" or "tournament": who may use it
    methods: tuple[str, ...]
    args: Any = None
    post: Any = field(default=None)
    changes: bool = True  # whether the organiser's POST changes something (valid data)


def csv_upload() -> SimpleUploadedFile:
    return SimpleUploadedFile("joueurs.csv", b"licence;nom;prenom\n0999001;Nouveau;Joueur\n")


SCREENS = [
    Screen("organiser_home", "home", ("GET",)),
    Screen("organiser_club_players", "club", ("GET",), lambda s: [s.club.pk]),
    Screen(
        "organiser_player_create",
        "club",
        ("GET", "POST"),
        lambda s: [s.club.pk],
        lambda s: {"last_name": "Neuf", "first_name": "Jean", "licence": "0999002"},
    ),
    Screen(
        "organiser_player_edit",
        "club",
        ("GET", "POST"),
        lambda s: [s.club.pk, s.outsider.pk],
        lambda s: {"last_name": "Renommé", "first_name": "Jean", "licence": s.outsider.licence},
    ),
    Screen(
        "organiser_players_import",
        "club",
        ("GET", "POST"),
        lambda s: [s.club.pk],
        lambda s: {"file": csv_upload()},
    ),
    Screen(
        "organiser_tournament_create",
        "create",
        ("GET", "POST"),
        None,
        lambda s: {
            "club": s.club.pk,
            "name": "Nouveau tournoi",
            "date": "2026-12-24",
            "rounds": 4,
            "donnes_per_relais": 4,
            "method": "average",
            "matchpoint_penalty_rate": "0.1",
        },
    ),
    Screen(
        "organiser_tournament_edit",
        "tournament",
        ("GET", "POST"),
        lambda s: [s.tournament.pk],
        lambda s: {
            "name": "Renommé",
            "date": "2026-12-05",
            "rounds": 2,
            "donnes_per_relais": 4,
            "method": "pairwise",
            "matchpoint_penalty_rate": "0.1",
            "arbiters": [s.personas.arbiter.pk],
        },
    ),
    Screen(
        "organiser_tournament_status",
        "tournament",
        ("POST",),
        lambda s: [s.tournament.pk],
        lambda s: {"status": "draft"},
    ),
    Screen("organiser_registrations", "tournament", ("GET",), lambda s: [s.tournament.pk]),
    Screen("organiser_registration_search", "tournament", ("GET",), lambda s: [s.tournament.pk]),
    Screen(
        "organiser_registration_add",
        "tournament",
        ("POST",),
        lambda s: [s.tournament.pk],
        lambda s: {"player": s.outsider.pk, "check_in": "1"},
    ),
    Screen(
        "organiser_registration_check_in_all",
        "tournament",
        ("POST",),
        lambda s: [s.tournament.pk],
    ),
    Screen(
        "organiser_registration_remove",
        "tournament",
        ("POST",),
        lambda s: [s.tournament.pk, s.player.pk],
    ),
    Screen(
        "organiser_registration_check_in",
        "tournament",
        ("POST",),
        lambda s: [s.tournament.pk, s.player.pk],
    ),
    Screen(
        "organiser_registration_check_out",
        "tournament",
        ("POST",),
        lambda s: [s.tournament.pk, s.tournament.registrations.first().player_id],
    ),
    Screen("organiser_prepare", "tournament", ("GET",), lambda s: [s.tournament.pk]),
    Screen("organiser_prepare_generate", "tournament", ("POST",), lambda s: [s.tournament.pk]),
    # Refused before the tournament is finished (a message, not a 403): nothing changes.
    Screen(
        "organiser_prepare_reveal",
        "tournament",
        ("POST",),
        lambda s: [s.tournament.pk],
        changes=False,
    ),
    Screen("organiser_seating_plan", "tournament", ("GET",), lambda s: [s.tournament.pk]),
]
ALLOWED = {
    # Any signed-in user may create a club from the organiser's home.
    "home": {"organiser", "arbiter", "other_arbiter", "player_user", "stranger"},
    "club": {"organiser"},
    "create": {"organiser"},
    "tournament": {"organiser", "arbiter"},
}


def expected_code(screen: Screen, persona: str, method: str) -> int | tuple[int, ...]:
    if persona == "anonymous":
        return 302
    if method not in screen.methods:
        return 405
    if persona not in ALLOWED[screen.kind]:
        return 403
    return 200 if method == "GET" else 302


@pytest.mark.parametrize("method", ["GET", "POST"])
@pytest.mark.parametrize("screen", SCREENS, ids=[s.name for s in SCREENS])
def test_permission_matrix(client, scene, screen, method):
    """Everyone without the right gets 403 (anonymous: the login page) and changes nothing;
    the club's organisers and, for a tournament, its arbiters get the screen."""
    url = reverse(screen.name, args=screen.args(scene) if screen.args else None)
    allowed = [p for p in PERSONAS if p in ALLOWED[screen.kind]]
    refused = [p for p in PERSONAS if p not in allowed]
    for persona in refused + allowed:
        client.logout()
        user = scene.user(persona)
        if user is not None:
            client.force_login(user)
        data = screen.post(scene) if screen.post and method == "POST" else {}
        before = snapshot(scene)
        send = client.get if method == "GET" else client.post
        response = send(url, data, **EN)
        expected = expected_code(screen, persona, method)
        assert response.status_code == expected, (persona, method, response.status_code)
        if persona == "anonymous":
            assert response["Location"].startswith(reverse("login"))
        writes = method == "POST" and method in screen.methods and persona in allowed
        if not writes:
            assert snapshot(scene) == before, (persona, method)
        elif persona == "organiser":
            assert (snapshot(scene) != before) == screen.changes, (persona, method)


def test_a_superuser_manages_any_club(client, scene):
    admin = get_user_model().objects.create_superuser("admin", password="x")
    client.force_login(admin)
    assert client.get(reverse("organiser_club_players", args=[scene.club.pk])).status_code == 200
    assert client.get(reverse("organiser_prepare", args=[scene.tournament.pk])).status_code == 200


def test_a_player_of_another_club_cannot_be_edited_through_this_club(client, scene):
    other = Club.objects.create(name="Autre", federation_number="7777")
    stranger_player = make_players(other, 1, start=10)[0]
    client.force_login(scene.personas.organiser)
    url = reverse("organiser_player_edit", args=[scene.club.pk, stranger_player.pk])
    assert client.get(url).status_code == 404


# --- players --------------------------------------------------------------------------------


@pytest.fixture
def organiser_client(client, scene):
    client.force_login(scene.personas.organiser)
    return client


def test_club_players_page_lists_and_filters(organiser_client, scene):
    url = reverse("organiser_club_players", args=[scene.club.pk])
    page = organiser_client.get(url, **EN).content.decode()
    assert scene.outsider.licence in page and scene.player.licence in page
    page = organiser_client.get(url, {"q": scene.outsider.licence}, **EN).content.decode()
    assert scene.outsider.licence in page and scene.player.licence not in page


def test_creating_a_player_validates_the_licence(organiser_client, scene):
    url = reverse("organiser_player_create", args=[scene.club.pk])
    data = {"last_name": "Morel", "first_name": "Jade", "licence": "12-34"}
    response = organiser_client.post(url, data, **EN)
    assert response.status_code == 200
    assert "exactly 7 digits" in response.content.decode()
    data["licence"] = scene.outsider.licence
    response = organiser_client.post(url, data, **EN)
    assert f"already belongs to {scene.outsider.full_name}" in response.content.decode()
    data["licence"] = "0999003"
    response = organiser_client.post(url, {**data, "add_another": "1"}, **EN)
    assert response["Location"] == url
    assert Player.objects.get(licence="0999003").club == scene.club


def test_editing_a_player(organiser_client, scene):
    url = reverse("organiser_player_edit", args=[scene.club.pk, scene.outsider.pk])
    data = {"last_name": "Morel", "first_name": "Jade", "licence": scene.outsider.licence}
    response = organiser_client.post(url, data, **EN)
    assert response.status_code == 302
    scene.outsider.refresh_from_db()
    assert scene.outsider.full_name == "Jade Morel"


def test_import_reports_counts_or_every_bad_line(organiser_client, scene):
    url = reverse("organiser_players_import", args=[scene.club.pk])
    bad = SimpleUploadedFile(
        "j.csv", "licence;nom;prénom\n0999010;Roux;Zoé\n99;Perrin;Jade\n0999010;X;Y\n".encode()
    )
    response = organiser_client.post(url, {"file": bad}, **EN)
    assert response.status_code == 422
    page = response.content.decode()
    assert "2 lines have errors" in page
    assert "Line 3:" in page and "Line 4:" in page and "Line 2:" not in page
    assert not Player.objects.filter(licence="0999010").exists()

    good = SimpleUploadedFile(
        "j.csv", "\ufefflicence,nom,prénom\n0999010,Roux,Zoé\n".encode("utf-8")
    )
    response = organiser_client.post(url, {"file": good}, follow=True, **EN)
    assert "Added: 1; updated: 0; unchanged: 0." in response.content.decode()
    assert Player.objects.get(licence="0999010").first_name == "Zoé"


@pytest.mark.parametrize(
    ("raw", "label"),
    [
        ("licence;nom;prénom\n0999011;Lefèvre;Zoé\n".encode("cp1252"), "Windows-1252"),
        ("licence;nom;prénom\n0999011;Lefèvre;Zoé\n".encode(), "UTF-8."),
        ("\ufefflicence;nom;prénom\n0999011;Lefèvre;Zoé\n".encode(), "UTF-8 (BOM)"),
    ],
)
def test_import_reads_the_encodings_spreadsheets_write_and_says_which(
    organiser_client, scene, raw, label
):
    url = reverse("organiser_players_import", args=[scene.club.pk])
    response = organiser_client.post(
        url, {"file": SimpleUploadedFile("j.csv", raw)}, follow=True, **EN
    )
    assert f"The file was read as {label}" in response.content.decode()
    player = Player.objects.get(licence="0999011")
    assert (player.last_name, player.first_name) == ("Lefèvre", "Zoé")


def test_import_says_which_encoding_it_read_when_refusing_a_line(organiser_client, scene):
    url = reverse("organiser_players_import", args=[scene.club.pk])
    bad = "licence;nom;prénom\n12;Lefèvre;Zoé\n".encode("cp1252")
    response = organiser_client.post(url, {"file": SimpleUploadedFile("j.csv", bad)}, **EN)
    assert response.status_code == 422
    assert "The file was read as Windows-1252." in response.content.decode()


def test_import_refuses_a_file_that_is_not_text(organiser_client, scene):
    url = reverse("organiser_players_import", args=[scene.club.pk])
    xlsx = SimpleUploadedFile("j.xlsx", b"PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00")
    response = organiser_client.post(url, {"file": xlsx}, **EN)
    assert "is not a CSV text file" in response.content.decode()
    assert "CSV UTF-8" in response.content.decode()


# --- tournaments and status -----------------------------------------------------------------


def test_creating_a_tournament_only_in_ones_own_clubs(organiser_client, scene):
    other = Club.objects.create(name="Autre", federation_number="7777")
    url = reverse("organiser_tournament_create")
    data = {
        "club": other.pk,
        "name": "Chez les autres",
        "date": "2026-12-24",
        "rounds": 4,
        "donnes_per_relais": 4,
        "method": "average",
        "matchpoint_penalty_rate": "0.1",
        "arbiters": [scene.personas.arbiter.pk],
    }
    response = organiser_client.post(url, data, **EN)
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()
    assert not Tournament.objects.filter(name="Chez les autres").exists()

    data["club"] = scene.club.pk
    response = organiser_client.post(url, data, **EN)
    created = Tournament.objects.get(name="Chez les autres")
    assert response["Location"] == reverse("organiser_prepare", args=[created.pk])
    assert created.status == Status.DRAFT
    assert list(created.arbiters.all()) == [scene.personas.arbiter]
    page = organiser_client.get(url, {"club": scene.club.pk}, **EN).content.decode()
    assert other.name not in page


def test_editing_a_running_tournament_refuses_a_new_number_of_rounds(client, scene):
    Tournament.objects.filter(pk=scene.tournament.pk).update(status=Status.RUNNING)
    client.force_login(scene.personas.arbiter)
    url = reverse("organiser_tournament_edit", args=[scene.tournament.pk])
    data = {
        "name": "Renommé",
        "date": "2026-12-05",
        "rounds": 5,
        "donnes_per_relais": 4,
        "method": "average",
        "matchpoint_penalty_rate": "0.1",
    }
    response = client.post(url, data, **EN)
    assert response.status_code == 200
    assert "only change before the tournament starts" in response.content.decode()
    scene.tournament.refresh_from_db()
    assert (scene.tournament.rounds, scene.tournament.name) == (2, "Tournoi du samedi")
    data["rounds"] = 2
    assert client.post(url, data, **EN).status_code == 302
    assert Tournament.objects.get(pk=scene.tournament.pk).name == "Renommé"


def test_status_buttons_and_the_guard_on_starting(organiser_client, scene):
    prepare = reverse("organiser_prepare", args=[scene.tournament.pk])
    status_url = reverse("organiser_tournament_status", args=[scene.tournament.pk])
    page = organiser_client.get(prepare, **EN).content.decode()
    assert "Start the tournament" in page and "Back to draft" in page
    # The late player arrives: the seating is out of date, starting is refused.
    organiser_client.post(
        reverse("organiser_registration_check_in", args=[scene.tournament.pk, scene.player.pk])
    )
    response = organiser_client.post(status_url, {"status": "running"}, follow=True, **EN)
    assert "The seating is out of date" in response.content.decode()
    assert scene.player.full_name in response.content.decode()
    assert Tournament.objects.get(pk=scene.tournament.pk).status == Status.REGISTRATION
    response = organiser_client.post(status_url, {"status": "published"}, follow=True, **EN)
    assert "Only a finished tournament can be published" in response.content.decode()
    organiser_client.post(reverse("organiser_prepare_generate", args=[scene.tournament.pk]))
    response = organiser_client.post(status_url, {"status": "running"}, follow=True, **EN)
    assert "The tournament is now: Running" in response.content.decode()
    assert Tournament.objects.get(pk=scene.tournament.pk).status == Status.RUNNING


# --- registrations, check-in, late arrival ---------------------------------------------------


def test_htmx_search_and_register(organiser_client, scene):
    search = reverse("organiser_registration_search", args=[scene.tournament.pk])
    response = organiser_client.get(
        search, {"q": scene.outsider.licence}, HTTP_HX_REQUEST="true", **EN
    )
    page = response.content.decode()
    assert "<html" not in page
    assert f'id="search-player-{scene.outsider.pk}"' in page and "Register and check in" in page
    registered = organiser_client.get(
        search, {"q": scene.player.licence}, HTTP_HX_REQUEST="true", **EN
    ).content.decode()
    assert "Registered" in registered and "Register and check in" not in registered

    add = reverse("organiser_registration_add", args=[scene.tournament.pk])
    response = organiser_client.post(
        add,
        {"player": scene.outsider.pk, "q": scene.outsider.licence, "check_in": "1"},
        HTTP_HX_REQUEST="true",
        **EN,
    )
    page = response.content.decode()
    assert 'id="registrations" hx-swap-oob="true"' in page
    assert "Registered" in page
    assert Registration.objects.get(player=scene.outsider).checked_in
    # Twice: the error is shown on the row, nothing changes.
    response = organiser_client.post(
        add, {"player": scene.outsider.pk, "q": ""}, HTTP_HX_REQUEST="true", **EN
    )
    assert "is already registered" in response.content.decode()
    assert Registration.objects.filter(player=scene.outsider).count() == 1


def test_htmx_check_in_returns_the_panel_with_the_seating_state(organiser_client, scene):
    url = reverse("organiser_registration_check_in", args=[scene.tournament.pk, scene.player.pk])
    response = organiser_client.post(url, HTTP_HX_REQUEST="true", **EN)
    page = response.content.decode()
    assert page.lstrip().startswith('<section class="card" id="registrations"')
    assert 'data-state="outdated"' in page
    assert "9 checked in" in page
    assert f"Checked in but not seated: {scene.player.full_name}" in page
    url = reverse("organiser_registration_check_out", args=[scene.tournament.pk, scene.player.pk])
    page = organiser_client.post(url, HTTP_HX_REQUEST="true", **EN).content.decode()
    assert 'data-state="current"' in page and "8 checked in" in page


def test_late_arrival_is_flagged_and_reseated(organiser_client, scene):
    tournament = scene.tournament
    organiser_client.post(
        reverse("organiser_registration_check_in", args=[tournament.pk, scene.player.pk])
    )
    organiser_client.post(
        reverse("organiser_registration_add", args=[tournament.pk]),
        {"player": scene.outsider.pk, "check_in": "1"},
    )
    late = f"{scene.player.full_name}, {scene.outsider.full_name}"
    for name in ("organiser_registrations", "organiser_prepare", "organiser_seating_plan"):
        page = organiser_client.get(reverse(name, args=[tournament.pk]), **EN).content.decode()
        assert 'data-state="outdated"' in page, name
        assert f"Checked in but not seated: {late}" in page
    response = organiser_client.post(
        reverse("organiser_prepare_generate", args=[tournament.pk]), follow=True, **EN
    )
    page = response.content.decode()
    assert "generated for the 10 checked-in players" in page
    assert 'data-state="current"' in page
    assert Seat.objects.filter(player=scene.outsider).count() == 2
    assert list(tournament.tables.values_list("size", flat=True)) == [5, 5]


def test_check_in_all_and_closed_registrations(organiser_client, scene):
    url = reverse("organiser_registration_check_in_all", args=[scene.tournament.pk])
    response = organiser_client.post(url, follow=True, **EN)
    assert "1 player checked in." in response.content.decode()
    Tournament.objects.filter(pk=scene.tournament.pk).update(status=Status.RUNNING)
    page = organiser_client.get(
        reverse("organiser_registrations", args=[scene.tournament.pk]), **EN
    ).content.decode()
    assert "Registrations and check-ins are closed" in page
    assert "Check in" not in re.sub(r"Registrations and check-in[s]?", "", page)
    response = organiser_client.post(
        reverse("organiser_registration_remove", args=[scene.tournament.pk, scene.player.pk]),
        HTTP_HX_REQUEST="true",
        **EN,
    )
    assert "closed" in response.content.decode()
    assert Registration.objects.filter(player=scene.player).exists()


# --- preparation, seed, seating plan ---------------------------------------------------------


def test_prepare_page_shows_the_commitment_and_generation_errors(organiser_client, scene):
    tournament = scene.tournament
    page = organiser_client.get(
        reverse("organiser_prepare", args=[tournament.pk]), **EN
    ).content.decode()
    assert tournament.commitment in page
    assert tournament.seed not in page
    assert "Regenerate the seating, movement and donnes" in page
    extra = make_players(tournament.club, 2, start=400)
    Registration.objects.bulk_create(
        Registration(tournament=tournament, player=p, checked_in_at=timezone.now()) for p in extra
    )
    # 8 checked in, + 2, + the late player: 11, which cannot be seated.
    Registration.objects.filter(player=scene.player).update(checked_in_at=timezone.now())
    seats = snapshot(scene)["seats"]
    response = organiser_client.post(
        reverse("organiser_prepare_generate", args=[tournament.pk]), follow=True, **EN
    )
    assert "11" in response.content.decode()
    assert 'class="msg-error"' in response.content.decode()
    assert snapshot(scene)["seats"] == seats


def test_seed_is_revealed_only_after_the_event(organiser_client, scene):
    tournament = scene.tournament
    reveal = reverse("organiser_prepare_reveal", args=[tournament.pk])
    response = organiser_client.post(reveal, follow=True, **EN)
    assert "once the tournament is finished" in response.content.decode()
    assert Tournament.objects.get(pk=tournament.pk).seed_revealed_at is None
    Tournament.objects.filter(pk=tournament.pk).update(status=Status.FINISHED)
    page = organiser_client.get(
        reverse("organiser_prepare", args=[tournament.pk]), **EN
    ).content.decode()
    assert 'id="reveal"' in page
    response = organiser_client.post(reveal, follow=True, **EN)
    page = response.content.decode()
    assert tournament.seed in page
    assert reverse("tournament_verify", args=[tournament.pk]) in page
    assert Tournament.objects.get(pk=tournament.pk).seed_revealed_at is not None


def test_seating_plan_shows_every_round_table_and_route(organiser_client, scene):
    page = organiser_client.get(
        reverse("organiser_seating_plan", args=[scene.tournament.pk]), **EN
    ).content.decode()
    for number in (1, 2):
        assert f'id="round-{number}"' in page
        assert f'id="round-{number}-table-1"' in page and f'id="round-{number}-table-2"' in page
    for seat in Seat.objects.filter(round__number=1, round__tournament=scene.tournament):
        assert page.count(seat.player.full_name) == 2  # once per round
    assert page.count("<tr><td>") == 8  # one route per player
    assert "@media print" in page


def test_seating_plan_queries_do_not_grow(client, personas, django_assert_max_num_queries):
    client.force_login(personas.organiser)
    small = stage_tournament(players=8, personas=personas)
    big = stage_tournament(players=22, rounds=4, name="Grand")
    big.club.organisers.add(personas.organiser)
    for tournament in (small, big):
        # 12 for the plan and the seating state, 3 for the check against the movement rules.
        with django_assert_max_num_queries(15):
            response = client.get(reverse("organiser_seating_plan", args=[tournament.pk]))
        assert response.status_code == 200


def test_tournament_page_links_to_the_organiser_screens_for_managers_only(client, scene):
    url = reverse("tournament_detail", args=[scene.tournament.pk])
    client.force_login(scene.personas.arbiter)
    page = client.get(url, **EN).content.decode()
    assert reverse("organiser_prepare", args=[scene.tournament.pk]) in page
    assert reverse("organiser_seating_plan", args=[scene.tournament.pk]) in page
    client.force_login(scene.personas.stranger)
    page = client.get(url, **EN).content.decode()
    assert reverse("organiser_prepare", args=[scene.tournament.pk]) not in page


def test_organiser_home_lists_clubs_and_managed_tournaments(client, scene):
    draft = stage_tournament(players=8, status=Status.DRAFT, name="Brouillon")
    draft.club.organisers.add(scene.personas.organiser)
    client.force_login(scene.personas.organiser)
    page = client.get(reverse("organiser_home"), **EN).content.decode()
    assert scene.club.name in page and "Brouillon" in page and "Tournoi du samedi" in page
    client.force_login(scene.personas.other_arbiter)
    page = client.get(reverse("organiser_home"), **EN).content.decode()
    assert "Autre tournoi" in page and "Tournoi du samedi" not in page
    assert "New tournament" not in page


@pytest.mark.parametrize(
    "name, budget",
    # The registrations page also lists the club's players to tick and its earlier tournaments.
    [("organiser_registrations", 15), ("organiser_prepare", 13)],
)
def test_registration_and_preparation_pages_queries_do_not_grow(
    client, personas, django_assert_max_num_queries, name, budget
):
    client.force_login(personas.organiser)
    small = stage_tournament(players=8, personas=personas, status=Status.REGISTRATION)
    big = stage_tournament(players=23, rounds=4, name="Grand", status=Status.REGISTRATION)
    big.club.organisers.add(personas.organiser)
    late = make_players(big.club, 2, start=900)
    Registration.objects.bulk_create(
        Registration(tournament=big, player=p, checked_in_at=timezone.now()) for p in late
    )
    for tournament in (small, big):
        with django_assert_max_num_queries(budget):
            response = client.get(reverse(name, args=[tournament.pk]), {"q": "a"}, **EN)
        assert response.status_code == 200
    assert 'data-state="outdated"' in response.content.decode()


def test_club_players_page_is_paginated(organiser_client, scene, django_assert_max_num_queries):
    Player.objects.bulk_create(
        Player(club=scene.club, licence=f"08{i:05d}", last_name=f"Zz{i:04d}", first_name="Anne")
        for i in range(250)
    )
    url = reverse("organiser_club_players", args=[scene.club.pk])
    first = organiser_client.get(url, **EN).content.decode()
    assert first.count("/edit/") == 100 and 'rel="next"' in first and 'rel="prev"' not in first
    with django_assert_max_num_queries(12):  # the same page cost whatever the club's size
        last = organiser_client.get(url, {"page": 3}, **EN).content.decode()
    assert 'rel="prev"' in last and 'rel="next"' not in last
    assert "Page 3 of 3" in last and "Zz0249" in last
    filtered = organiser_client.get(url, {"q": "zz0001", "page": "x"}, **EN).content.decode()
    assert filtered.count("/edit/") == 1 and "Page 1 of" not in filtered
