"""The Celery application. Settings come from Django's (CELERY_* names)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tarot_club.settings")

app = Celery("tarot_club")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
