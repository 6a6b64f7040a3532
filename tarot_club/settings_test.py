"""Settings for the test suite: the production settings with test defaults.

Tasks run in-process unless a test starts a real worker (tests/fixtures/services.py).
"""

import os

os.environ.setdefault("SECRET_KEY", "test-only-secret-key")
os.environ.setdefault("CELERY_EAGER", "1")

from .settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Tests change results and poll at once: every poll reads the database (a test enables it).
RANKING_POLL_CACHE_SECONDS = 0
