"""The championship's downloads (`export_views`), paths relative to where the championship's
urls include them (e.g. "championnats/"): "<pk>/classement.pdf", "<pk>/classement.csv" (both
with ``?serie=``) and "<pk>/qualifies.csv"."""

from __future__ import annotations

from django.urls import path

from . import export_views

urlpatterns = [
    path(
        "<int:pk>/classement.pdf",
        export_views.ranking_pdf_download,
        name="championship_ranking_pdf",
    ),
    path(
        "<int:pk>/classement.csv",
        export_views.ranking_csv_download,
        name="championship_ranking_csv",
    ),
    path(
        "<int:pk>/qualifies.csv",
        export_views.qualifiers_csv_download,
        name="championship_qualifiers_csv",
    ),
]
