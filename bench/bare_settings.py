"""Settings of the site served by bench/bench_api_writes.py: the production settings, with a
URLconf that adds the bench's bare endpoint (bench/bare_urls.py). Never used by the site."""

from tarot_club.settings import *  # noqa: F403

ROOT_URLCONF = "bare_urls"
