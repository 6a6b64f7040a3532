"""Which part of the guide speaks of which page of the site (the header's Help link).

Every named URL of the site is either given a section here or listed in NO_HELP (fragments,
actions and downloads that are not pages); a test keeps it so when pages are added.
"""

from __future__ import annotations

from django.urls import Resolver404, resolve, reverse

from tarot_club.guide.pages import page_url

# URL name -> (guide page, section anchor or "")
TOPICS: dict[str, tuple[str, str]] = {
    "home": ("index", ""),
    "login": ("index", "roles"),
    "signup": ("organiser", "premier-compte"),
    "account": ("joueurs", "feuille"),
    "club_list": ("joueurs", ""),
    "club_detail": ("joueurs", ""),
    "club_season": ("joueurs", "classement"),
    "player_search": ("joueurs", "ou-suis-je"),
    "player_detail": ("joueurs", "feuille"),
    "player_results": ("joueurs", "feuille"),
    "tournament_detail": ("joueurs", "ou-suis-je"),
    "tournament_verify": ("organiser", "verification"),
    "ranking": ("joueurs", "classement"),
    "score_card": ("joueurs", "feuille"),
    "donne_list": ("joueurs", "fiches"),
    "traveller": ("joueurs", "fiches"),
    "organiser_home": ("organiser", ""),
    "organiser_club_create": ("organiser", "club"),
    "organiser_club_accounts": ("organiser", "club"),
    "account_set_password": ("organiser", "club"),
    "organiser_club_players": ("organiser", "joueurs"),
    "organiser_player_create": ("organiser", "joueurs"),
    "organiser_player_edit": ("organiser", "joueurs"),
    "organiser_players_import": ("organiser", "joueurs"),
    "organiser_tournament_create": ("organiser", "tournoi"),
    "organiser_tournament_edit": ("organiser", "tournoi"),
    "organiser_tournament_status": ("organiser", "publier"),
    "organiser_registrations": ("organiser", "inscriptions"),
    "organiser_prepare": ("organiser", "generation"),
    "organiser_seating_plan": ("organiser", "tours"),
    "documents": ("organiser", "imprimer"),
    "arbiter_dashboard": ("arbitrer", "tableau-de-bord"),
    "arbiter_result": ("arbitrer", "saisie"),
    "arbiter_penalties": ("arbitrer", "penalites"),
    "arbiter_ledger": ("arbitrer", "journal"),
    "arbiter_calls": ("arbitrer", "appels"),
    "arbiter_call": ("arbitrer", "appels"),
    "arbiter_claims": ("arbitrer", "reclamations"),
    "table_claim": ("arbitrer", "reclamations"),
    "tournament_claim": ("arbitrer", "reclamations"),
    "landing": ("index", "roles"),
    "tournament_seats": ("joueurs", "ou-suis-je"),
    "room_screen": ("arbitrer", "ecran"),
    "arbiter_tables": ("arbitrer", "table"),
    "table_code": ("joueurs", "a-la-table"),
    "table_code_direct": ("joueurs", "a-la-table"),
    "table_page": ("joueurs", "a-la-table"),
    "table_card": ("joueurs", "a-la-table"),
    "guide": ("index", ""),
    "guide_page": ("index", ""),
    "simultaneous_events": ("organiser", "simultanes"),
    "simultaneous_event_create": ("organiser", "simultanes"),
    "simultaneous_event": ("organiser", "simultanes"),
    "simultaneous_ranking": ("organiser", "simultanes"),
    "simultaneous_field_club": ("organiser", "simultanes"),
    "simultaneous_player": ("organiser", "simultanes"),
    "simultaneous_donnes": ("organiser", "simultanes"),
    "simultaneous_traveller": ("organiser", "simultanes"),
    "simultaneous_club": ("organiser", "simultanes"),
    "simultaneous_join": ("organiser", "simultanes"),
    "simultaneous_revoke": ("organiser", "simultanes"),
    "championship_list": ("joueurs", "championnats"),
    "championship_detail": ("joueurs", "championnats"),
    "championship_qualifiers": ("joueurs", "championnats"),
    "championship_create": ("organiser", "championnats"),
    "championship_manage": ("organiser", "championnats"),
    "championship_series": ("organiser", "championnats"),
    "mine": ("joueurs", "mon-tarot"),
    "mine_link": ("joueurs", "mon-tarot"),
    "player_tarot": ("joueurs", "mon-tarot"),
    "mine_link_report": ("joueurs", "rapport"),
    "player_event_report": ("joueurs", "rapport"),
}

NO_HELP = frozenset(
    {
        "healthz",
        "organiser_club_rating",
        "logout",
        "guide_image",
        "organiser_registration_search",
        "organiser_registration_add",
        "organiser_registration_add_many",
        "organiser_registration_check_in_all",
        "organiser_registration_remove",
        "organiser_registration_check_in",
        "organiser_registration_check_out",
        "organiser_prepare_generate",
        "organiser_prepare_reveal",
        "organiser_seating_swap",
        "organiser_seating_set",
        "arbiter_jump",
        "arbiter_result_preview",
        "arbiter_result_annul",
        "arbiter_round_open",
        "arbiter_round_close",
        "arbiter_penalty_withdraw",
        "arbiter_claim_settle",
        "arbiter_claims_close",
        "document_request",
        "document_request_all",
        "document_status",
        "document_download",
        "player_event_report_pdf",
        "mine_link_report_pdf",
        "ranking_csv",
        "score_cards_csv",
        "arbiter_announcement",
        "arbiter_clock",
        "arbiter_clock_action",
        "arbiter_entry_confirm",
        "arbiter_player_code",
        "arbiter_player_unbind",
        "arbiter_table_reissue",
        "arbiter_table_revoke",
        "room_screen_clock",
        "room_screen_ranking",
        "table_call",
        "arbiter_calls_panel",
        "claims_window_line",
        "arbiter_call_take",
        "arbiter_call_etui_pdf",
        "table_confirm",
        "table_contest",
        "table_manifest",
        "table_preview",
        "table_save",
        "table_state",
        "table_sw",
        "simultaneous_invite",
        "simultaneous_upload",
        "simultaneous_close",
        "simultaneous_ranking_csv",
        "simultaneous_results_csv",
        "simultaneous_booklet",
        "simultaneous_club_file",
        "simultaneous_club_refresh",
        "simultaneous_club_send",
        "championship_event_action",
        "championship_ranking_pdf",
        "championship_ranking_csv",
        "championship_qualifiers_csv",
        "organiser_club_players_csv",
        "organiser_player_link_issue",
        "organiser_player_link_revoke",
    }
)


def help_url(url_name: str | None) -> str:
    """The guide section about the page named ``url_name`` (the guide's start otherwise)."""
    slug, anchor = TOPICS.get(url_name or "", ("index", ""))
    return page_url(slug) + (f"#{anchor}" if anchor else "")


def _asked_page(request) -> str | None:
    """On the login page, the name of the page that sent the visitor there (``?next=``), when
    it is one of the site's: its section helps him more than the roles do."""
    target = request.GET.get("next", "") if hasattr(request, "GET") else ""
    if not target.startswith("/") or target.startswith("//"):
        return None
    try:
        return resolve(target.split("?", 1)[0]).url_name
    except Resolver404:
        return None


def help_context(request) -> dict[str, str]:
    """Context processor: ``help_url`` for the header's Help link (on the login page, the
    section of the page the visitor asked for: a player sent to log in from "Où suis-je
    assis ?" lands on that section, not on the roles)."""
    match = getattr(request, "resolver_match", None)
    try:
        name = match.url_name if match else None
        if name == "login":
            asked = _asked_page(request)
            name = asked if asked in TOPICS else name
        return {"help_url": help_url(name)}
    except Exception:  # no URLconf loaded yet (an error page): the guide's start
        return {"help_url": reverse("guide")}
