"""URLs of the documents pages: everything under /t/<pk>/documents/."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from .views import documents

urlpatterns: list[URLPattern | URLResolver] = [
    path("t/<int:pk>/documents/", documents.documents_page, name="documents"),
    path("t/<int:pk>/documents/build/", documents.document_request_view, name="document_request"),
    path(
        "t/<int:pk>/documents/build-all/",
        documents.document_request_all_view,
        name="document_request_all",
    ),
    path(
        "t/<int:pk>/documents/<int:document_id>/status/",
        documents.document_status,
        name="document_status",
    ),
    path(
        "t/<int:pk>/documents/<int:document_id>/download/",
        documents.document_download,
        name="document_download",
    ),
]
