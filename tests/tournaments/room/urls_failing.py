"""The site's URLs plus one that fails, to see the 500 page as the room would."""

from __future__ import annotations

from django.urls import path

from tarot_club.urls import handler400, handler403, handler404, handler500, urlpatterns

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]


def broken(request):
    raise RuntimeError("a bug in a view")


urlpatterns = [path("broken/", broken), *urlpatterns]
