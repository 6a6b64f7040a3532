"""The site's urls with the championship's downloads included where the championship's pages
include them ("championnats/"), for the download tests (`pytest.mark.urls`)."""

from django.urls import include, path

from tarot_club.urls import urlpatterns as site

urlpatterns = [
    path("championnats/", include("tournaments.championships.export_urls")),
    *site,
]
