"""URLs of the tables' pages (everything under /table/, the service worker's scope) and
the arbiter's screens about them."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path, register_converter

from .views import claims, table, table_admin


class SecretConverter:
    """A table page's secret: 43 URL-safe characters (256 random bits)."""

    regex = "[A-Za-z0-9_-]{40,64}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


class ShortCodeConverter:
    """The 6-character code printed beside the QR code."""

    regex = "[A-Za-z0-9]{6}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


class CardTokenConverter:
    """A table card's token (the table's id, "-", a hex signature): ASCII only, so that the
    signature check never compares text it cannot (any other character is a 404)."""

    regex = "[A-Za-z0-9_-]{1,80}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(SecretConverter, "table_secret")
register_converter(CardTokenConverter, "table_card_token")
register_converter(ShortCodeConverter, "table_code")

PAGE = "table/<table_secret:secret>/"
DONNE = PAGE + "donne/<int:donne>/"

urlpatterns: list[URLPattern | URLResolver] = [
    path("table/", table.table_code, name="table_code"),
    path("table/sw.js", table.service_worker, name="table_sw"),
    path("table/card/<table_card_token:token>/", table.table_card, name="table_card"),
    path("table/<table_code:code>/", table.table_code, name="table_code_direct"),
    path(PAGE, table.table_page, name="table_page"),
    path(PAGE + "state.json", table.table_state, name="table_state"),
    path(PAGE + "manifest.webmanifest", table.table_manifest, name="table_manifest"),
    path(PAGE + "call/", table.table_call, name="table_call"),
    path(PAGE + "claim/", claims.table_claim, name="table_claim"),
    path(DONNE + "preview/", table.table_preview, name="table_preview"),
    path(DONNE + "save/", table.table_save, name="table_save"),
    path(DONNE + "confirm/", table.table_confirm, name="table_confirm"),
    path(DONNE + "contest/", table.table_contest, name="table_contest"),
    # The arbiter's side.
    path("t/<int:pk>/arbiter/tables/", table_admin.tables_overview, name="arbiter_tables"),
    path(
        "t/<int:pk>/arbiter/tables/<int:table_round>/reissue/",
        table_admin.table_access_change,
        {"action": "reissue"},
        name="arbiter_table_reissue",
    ),
    path(
        "t/<int:pk>/arbiter/tables/<int:table_round>/revoke/",
        table_admin.table_access_change,
        {"action": "revoke"},
        name="arbiter_table_revoke",
    ),
    path(
        "t/<int:pk>/arbiter/players/<int:player_id>/code/",
        table_admin.player_code_new,
        name="arbiter_player_code",
    ),
    path(
        "t/<int:pk>/arbiter/players/<int:player_id>/unbind/",
        table_admin.player_binding_end,
        name="arbiter_player_unbind",
    ),
    path(
        "t/<int:pk>/arbiter/table/<int:table>/donne/<int:donne>/confirm-entry/",
        table_admin.entry_confirm,
        name="arbiter_entry_confirm",
    ),
]
