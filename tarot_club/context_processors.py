"""Values every page needs: the version shown in the footer."""

from __future__ import annotations

from django.http import HttpRequest

from . import __version__


def site(request: HttpRequest) -> dict[str, str]:
    return {"app_version": __version__}
