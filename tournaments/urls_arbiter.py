"""URLs of the arbiter screens: everything under /t/<pk>/arbiter/."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from .views import arbiter, calls, claims

CELL = "t/<int:pk>/arbiter/table/<int:table>/donne/<int:donne>/"

urlpatterns: list[URLPattern | URLResolver] = [
    path("t/<int:pk>/arbiter/", arbiter.dashboard, name="arbiter_dashboard"),
    path("t/<int:pk>/arbiter/go/", arbiter.jump, name="arbiter_jump"),
    path(CELL, arbiter.result_entry, name="arbiter_result"),
    path(CELL + "preview/", arbiter.result_preview_view, name="arbiter_result_preview"),
    path(CELL + "annul/", arbiter.result_annul_view, name="arbiter_result_annul"),
    path(
        "t/<int:pk>/arbiter/rounds/<int:number>/open/",
        arbiter.round_state,
        {"action": "open"},
        name="arbiter_round_open",
    ),
    path(
        "t/<int:pk>/arbiter/rounds/<int:number>/close/",
        arbiter.round_state,
        {"action": "close"},
        name="arbiter_round_close",
    ),
    path("t/<int:pk>/arbiter/penalties/", arbiter.penalties, name="arbiter_penalties"),
    path(
        "t/<int:pk>/arbiter/penalties/<int:penalty_id>/withdraw/",
        arbiter.penalty_withdraw_view,
        name="arbiter_penalty_withdraw",
    ),
    path("t/<int:pk>/arbiter/ledger/", arbiter.ledger, name="arbiter_ledger"),
    path("t/<int:pk>/arbiter/calls/", calls.calls_list, name="arbiter_calls"),
    path("t/<int:pk>/arbiter/calls/live/", calls.calls_panel, name="arbiter_calls_panel"),
    path("t/<int:pk>/arbiter/calls/<int:call_id>/", calls.call_page, name="arbiter_call"),
    path(
        "t/<int:pk>/arbiter/calls/<int:call_id>/take/",
        calls.call_take_view,
        name="arbiter_call_take",
    ),
    path("t/<int:pk>/arbiter/claims/", claims.claims, name="arbiter_claims"),
    path(
        "t/<int:pk>/arbiter/claims/<int:claim_id>/settle/",
        claims.claim_settle_view,
        name="arbiter_claim_settle",
    ),
    path("t/<int:pk>/arbiter/claims/close/", claims.claims_close_view, name="arbiter_claims_close"),
]
