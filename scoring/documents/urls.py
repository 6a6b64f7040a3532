"""URLs of the documents pages: everything under /t/<pk>/documents/."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from . import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("t/<int:pk>/documents/", views.documents_page, name="documents"),
    path("t/<int:pk>/documents/build/", views.document_request_view, name="document_request"),
    path(
        "t/<int:pk>/documents/build-all/",
        views.document_request_all_view,
        name="document_request_all",
    ),
    path(
        "t/<int:pk>/documents/<int:document_id>/status/",
        views.document_status,
        name="document_status",
    ),
    path(
        "t/<int:pk>/documents/<int:document_id>/download/",
        views.document_download,
        name="document_download",
    ),
    path(
        "t/<int:pk>/arbiter/calls/<int:call_id>/etui.pdf",
        views.call_etui_pdf,
        name="arbiter_call_etui_pdf",
    ),
    path(
        "players/<int:pk>/events/<int:tournament_pk>/report.pdf",
        views.player_event_report_pdf,
        name="player_event_report_pdf",
    ),
    path(
        "moi/<str:token>/events/<int:tournament_pk>/report.pdf",
        views.mine_link_report_pdf,
        name="mine_link_report_pdf",
    ),
]
