"""Values every page needs: the version shown in the footer, whether the sign-up is open."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest

from . import __version__


def site(request: HttpRequest) -> dict[str, Any]:
    return {"app_version": __version__, "signup_open": settings.SIGNUP_OPEN}
