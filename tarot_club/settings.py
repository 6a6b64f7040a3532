"""Settings for tarot_club, driven by environment variables (see README, "Configuration").

SQLite in the project folder is the default so that a fresh checkout runs; production and CI
set DATABASE_URL to PostgreSQL. Without a reachable broker Celery runs tasks in-process.
"""

from __future__ import annotations

from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from .env import env_bool, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("TAROT_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY")
# A file may hold the key instead (`make` writes one for a checkout; deployments may mount one).
SECRET_KEY_FILE = Path(env_str("SECRET_KEY_FILE", str(BASE_DIR / ".secret_key")))
if not SECRET_KEY and SECRET_KEY_FILE.is_file():
    SECRET_KEY = SECRET_KEY_FILE.read_text(encoding="utf-8").strip()
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. Set SECRET_KEY (a long random string) or SECRET_KEY_FILE "
            "(a file holding one), or DEBUG=1 for a development machine."
        )
    SECRET_KEY = "insecure-development-key-only-used-when-DEBUG-is-on"

# Absolute address of the site, printed in QR codes on the table score sheets.
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000").rstrip("/")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "tarot_club",
    "scoring",
    "tournaments",
    "tournaments.simultaneous.hub",
    "tournaments.simultaneous.club",
    "tournaments.championships",
]

MIDDLEWARE = [
    "tarot_club.middleware.HealthzAnyHostMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "tarot_club.middleware.SecurityHeadersMiddleware",
    "tarot_club.middleware.BadInputMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "tarot_club.kit.replicas.ReplicaReadsMiddleware",
    "tarot_club.middleware.RankingPollMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "tarot_club.middleware.DatabaseOutageMiddleware",
]

ROOT_URLCONF = "tarot_club.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "tarot_club.context_processors.site",
                "tarot_club.guide.topics.help_context",
            ],
        },
    },
]

WSGI_APPLICATION = "tarot_club.wsgi.application"
ASGI_APPLICATION = "tarot_club.asgi.application"

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(env_str("DB_CONN_MAX_AGE", "60")),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file (not memory) so that a worker process started by a test sees the test database.
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / "test_db.sqlite3")}
    # IMMEDIATE: a transaction takes the write lock as it begins, so the site and a worker wait
    # for each other instead of failing with "database is locked" (read-then-write deadlock).
    DATABASES["default"]["OPTIONS"] = {"timeout": 20, "transaction_mode": "IMMEDIATE"}
    DATABASES["default"]["CONN_MAX_AGE"] = 0
# Streaming replicas for the public pages (tarot_club/kit/replicas.py): comma-separated URLs,
# aliases replica_1, replica_2, ...; without them every read goes to the primary.
DATABASE_REPLICAS: list[str] = []
for _number, _url in enumerate(env_list("DATABASE_REPLICA_URLS", ""), start=1):
    _alias = f"replica_{_number}"
    DATABASES[_alias] = dj_database_url.parse(
        _url, conn_max_age=DATABASES["default"].get("CONN_MAX_AGE", 0)
    )
    DATABASES[_alias].setdefault("OPTIONS", {})["connect_timeout"] = 2
    DATABASES[_alias]["TEST"] = {"MIRROR": "default"}
    DATABASE_REPLICAS.append(_alias)
DATABASE_ROUTERS = ["tarot_club.kit.replicas.ReplicaRouter"]
DATABASE_REPLICA_STICKY_SECONDS = int(env_str("DATABASE_REPLICA_STICKY_SECONDS", "15"))
DATABASE_REPLICA_RETRY_SECONDS = float(env_str("DATABASE_REPLICA_RETRY_SECONDS", "30"))
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "landing"  # where the user works today (tournaments/services/landing.py)
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "fr"
LANGUAGES = [("fr", _("Français")), ("en", _("English"))]
LOCALE_PATHS = [
    BASE_DIR / "tarot_club" / "locale",
    BASE_DIR / "tournaments" / "simultaneous" / "hub" / "locale",
]
TIME_ZONE = "Europe/Paris"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
# tarot_club/static is found as the tarot_club app's folder (listing it here too collected
# every file twice).
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(VAR_DIR / "media")))
MEDIA_URL = "media/"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        # Hashed and compressed names after collectstatic (tarot_club/static_storage.py).
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "tarot_club.static_storage.StaticStorage"
    },
}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

# Celery: Redis as broker and result backend. REDIS_URL="" means "no broker": tasks run
# in-process. CELERY_EAGER=1 forces in-process execution (used by `make run` when Redis
# does not answer, and by the test suite except the tests that start a real worker).
REDIS_URL = env_str("REDIS_URL", "redis://127.0.0.1:6379/0")
CELERY_EAGER = env_bool("CELERY_EAGER", False) or not REDIS_URL
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL or "cache+memory://"
CELERY_TASK_ALWAYS_EAGER = CELERY_EAGER
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# visibility_timeout: a task taken by a worker that died is delivered again after this many
# seconds (Redis' default is an hour). Longer than the longest task (a document build) and
# countdown; a stale ranking is picked up sooner by the sweep (scoring/rankings/sweep.py).
CELERY_VISIBILITY_TIMEOUT = int(env_str("CELERY_VISIBILITY_TIMEOUT", "600"))
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "socket_connect_timeout": 1,
    "max_retries": 1,
    "visibility_timeout": CELERY_VISIBILITY_TIMEOUT,
}
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_VISIBILITY_TIMEOUT}
CELERY_BROKER_CONNECTION_TIMEOUT = 1
CELERY_RESULT_EXPIRES = 3600
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_QUEUE", "tarot_club")

# Live ranking: computations at least RANKING_MIN_INTERVAL seconds apart (coalescing bursts);
# a page computes in-process when the workers have not caught up RANKING_STALE_AFTER seconds
# after a change; pages poll every RANKING_POLL_SECONDS. Documents whose build has shown no
# progress for DOCUMENT_STALE_SECONDS are rebuilt on request (their worker died).
RANKING_MIN_INTERVAL = float(env_str("RANKING_MIN_INTERVAL", "1"))
RANKING_STALE_AFTER = float(env_str("RANKING_STALE_AFTER", "15"))
# Every worker sweeps for stale rankings and dead document builds this often (scoring/rankings/sweep.py);
# empty: a quarter of RANKING_STALE_AFTER.
RANKING_SWEEP_SECONDS = float(env_str("RANKING_SWEEP_SECONDS", "0") or 0) or None
# /healthz checks Redis and pings the workers at most this often (in the background).
HEALTH_CACHE_SECONDS = float(env_str("HEALTH_CACHE_SECONDS", "5"))
RANKING_POLL_SECONDS = int(env_str("RANKING_POLL_SECONDS", "5"))
# A web process reuses a tournament's poll state (the one query a poll costs) this many
# seconds: a hall of a thousand phones then costs a few queries a second, and a new ranking
# reaches a phone at most this much later. 0: every poll asks the database.
RANKING_POLL_CACHE_SECONDS = float(env_str("RANKING_POLL_CACHE_SECONDS", "1"))
# The polled rankings (the hub's field pages, the room's screen) are rendered once per results
# version and kept in the shared cache (tarot_club/kit/cached_read.py); 0: every read renders
# (the baseline of bench/bench_polls.py).
CACHED_READS = env_bool("CACHED_READS", True)
DOCUMENT_STALE_SECONDS = int(env_str("DOCUMENT_STALE_SECONDS", "15"))
# A penalty identical to one the same player was given (not withdrawn) less than this many
# seconds ago is the same one sent twice and is not recorded again (RULES §8); 0: no check.
PENALTY_REPEAT_SECONDS = float(env_str("PENALTY_REPEAT_SECONDS", "120"))
# A club's site connects to the hub of a simultaneous event only over https to a public
# address; these addresses are allowed besides (a hub in the room without internet, tests):
# comma-separated, e.g. "http://hub.local,https://10.0.0.5:8443" (no port: every port).
SIMULTANEOUS_HUB_ALLOWED_URLS = env_list("SIMULTANEOUS_HUB_ALLOWED_URLS", "")

# Client addresses and shared counters (throttles): TRUSTED_PROXIES is the number of proxies
# in front of the site that append to X-Forwarded-For (0: the header is ignored and the
# address is the connection's). Throttle counters live in a cache every process shares:
# Redis when it is the broker in use, else the database (table created by a migration).
TRUSTED_PROXIES = int(env_str("TRUSTED_PROXIES", "0"))
SHARED_CACHE_TABLE = "tarot_cache"
_DATABASE_CACHE = {
    "BACKEND": "django.core.cache.backends.db.DatabaseCache",
    "LOCATION": SHARED_CACHE_TABLE,
}
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "shared": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "tarot",
        "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
    }
    if REDIS_URL and not CELERY_EAGER
    else _DATABASE_CACHE,
    # Where the shared counters go while Redis does not answer.
    "shared_fallback": _DATABASE_CACHE,
}

# After this many failed logins on one user name within an hour, from any address, every
# attempt for that name waits LOGIN_SLOWDOWN_SECONDS (at most 5) before it is checked.
# The sign-up page (/signup/): anyone may open an account, then create his club. A site
# whose owner hands out the accounts himself (manage.py create_organiser) closes it.
# A simultaneous event's hub (tournaments/simultaneous/hub): seconds between two computations
# of an event's overall ranking, after which the sweep computes an event left stale, and
# whether a process without a broker computes the ranking and the booklet in the request.
SIMULTANEOUS_RANKING_MIN_INTERVAL = float(env_str("SIMULTANEOUS_RANKING_MIN_INTERVAL", "2"))
SIMULTANEOUS_RANKING_SWEEP_AFTER = float(env_str("SIMULTANEOUS_RANKING_SWEEP_AFTER", "30"))
SIMULTANEOUS_RANKING_INLINE = env_bool("SIMULTANEOUS_RANKING_INLINE", True)
# Events whose pooled results a process keeps between two computations (about 70 MB each at
# 12,000 players; 0: every computation reads every club's results).
SIMULTANEOUS_RANKING_KEPT_EVENTS = int(env_str("SIMULTANEOUS_RANKING_KEPT_EVENTS", "4"))
SIMULTANEOUS_BOOKLET_INLINE = env_bool("SIMULTANEOUS_BOOKLET_INLINE", True)
# A club's season ranking (scoring/rankings/season.py), a derived ranking like the others.
CLUB_SEASON_MIN_INTERVAL = float(env_str("CLUB_SEASON_MIN_INTERVAL", "2"))
CLUB_SEASON_SWEEP_AFTER = float(env_str("CLUB_SEASON_SWEEP_AFTER", "30"))
CLUB_SEASON_INLINE = env_bool("CLUB_SEASON_INLINE", True)
# A championship's ranking (tournaments.championships.ranking): seconds between two
# computations of one championship, seconds it may stay stale before the sweep computes it.
CHAMPIONSHIP_MIN_INTERVAL = float(env_str("CHAMPIONSHIP_MIN_INTERVAL", "2"))
CHAMPIONSHIP_SWEEP_AFTER = float(env_str("CHAMPIONSHIP_SWEEP_AFTER", "30"))
# The players' rating, "indice" (scoring/rankings/rating.py, docs/RATING.md).
RATING_ENABLED = env_bool("RATING_ENABLED", True)
RATING_MIN_INTERVAL = float(env_str("RATING_MIN_INTERVAL", "10"))
RATING_SWEEP_AFTER = float(env_str("RATING_SWEEP_AFTER", "60"))
RATING_INLINE = env_bool("RATING_INLINE", True)
SIGNUP_OPEN = env_bool("SIGNUP_OPEN", True)
LOGIN_SLOWDOWN_AFTER = int(env_str("LOGIN_SLOWDOWN_AFTER", "10"))
LOGIN_SLOWDOWN_SECONDS = float(env_str("LOGIN_SLOWDOWN_SECONDS", "2"))

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 100,
    # Every API error as {"code", "message", "details"} (tarot_club/kit/api/errors.py).
    "EXCEPTION_HANDLER": "tarot_club.kit.api.errors.api_exception_handler",
    # Read on each request by tarot_club/kit/throttling.py (so tests can lower them): login
    # attempts per address and user name, per address, and API writes per user.
    "DEFAULT_THROTTLE_RATES": {
        "login": env_str("API_LOGIN_RATE", "10/min"),
        "login_ip": env_str("API_LOGIN_IP_RATE", "60/min"),
        "write": env_str("API_WRITE_RATE", "600/min"),
        # failed logins per (user name, client address), and per client address
        "login_failures": env_str("LOGIN_FAILURES_RATE", "30/hour"),
        "login_address_failures": env_str("LOGIN_ADDRESS_FAILURES_RATE", "100/hour"),
        # sign-up attempts (posted forms) per client address
        "signup": env_str("SIGNUP_RATE", "20/hour"),
    },
    "NUM_PROXIES": TRUSTED_PROXIES,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "tarot_club API",
    "DESCRIPTION": "Duplicate French tarot tournaments: clubs, players, tournaments, results, "
    "rankings and documents.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "COMPONENT_SPLIT_REQUEST": True,
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer", "minimum": 0, "maximum": 999999999}},
    "ENUM_NAME_OVERRIDES": {
        "TournamentStatusEnum": "tournaments.models.Tournament.Status",
        "ResultStatusEnum": "tournaments.models.Result.Status",
        "EntryStatusEnum": "tournaments.api.serializers.ENTRY_STATUSES",
        "ScoreCardLineStatusEnum": "tournaments.api.serializers.CARD_LINE_STATUSES",
        "PositionEnum": "tournaments.models.Position",
        "SeatPositionEnum": "tournaments.models.SeatPosition",
        "DocumentStatusEnum": "scoring.documents.api.DOCUMENT_STATUSES",
        "DocumentKindEnum": "scoring.documents.api.DOCUMENT_KINDS",
        "PenaltyKindEnum": "tournaments.models.Penalty.Kind",
        "RoundStateEnum": "tournaments.models.Round.State",
        "CallStateEnum": "tournaments.models_calls.ArbiterCall.State",
        "CallRulingEnum": "tournaments.models_calls.ArbiterCall.Ruling",
        "IrregularityEnum": "tournaments.models_calls.Irregularity",
        "ClaimKindEnum": "tournaments.models_claims.Claim.Kind",
        "ClaimStateEnum": "tournaments.models_claims.Claim.State",
        "ClaimDecisionEnum": "tournaments.api.views.claims.DECISIONS",
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
}

if not DEBUG:
    SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", False)
    CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", False)

# Behind HTTPS (SECURE_COOKIES=1): redirect plain HTTP (except the health probe), HSTS.
# Behind trusted proxies, the scheme they saw comes in X-Forwarded-Proto.
if TRUSTED_PROXIES:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
if not DEBUG and env_bool("SECURE_COOKIES", False):
    SECURE_SSL_REDIRECT = True
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SECURE_HSTS_SECONDS = int(env_str("HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("HSTS_PRELOAD", False)
    if not SECURE_HSTS_PRELOAD:  # asking browsers to preload the site is the owner's choice
        SILENCED_SYSTEM_CHECKS = [*globals().get("SILENCED_SYSTEM_CHECKS", []), "security.W021"]
