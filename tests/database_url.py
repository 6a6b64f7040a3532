"""Print the database URL `make test` runs on: DATABASE_URL when set, else the local PostgreSQL
when one answers (its `tarot_club` database, created if missing), else nothing (SQLite).

Says on standard error which one it chose, so that a laptop's run shows whether the
PostgreSQL-only branches ran."""

from __future__ import annotations

import os
import sys

LOCAL = "postgres://postgres@127.0.0.1:5432/tarot_club"


def local_postgresql() -> str:
    """The local PostgreSQL's URL when it answers (creating the database), else ''."""
    try:
        import psycopg
    except ImportError:
        return ""
    try:
        with psycopg.connect(
            "postgresql://postgres@127.0.0.1:5432/postgres", connect_timeout=2, autocommit=True
        ) as conn:
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = 'tarot_club'")
            if exists.fetchone() is None:
                conn.execute("CREATE DATABASE tarot_club")
    except psycopg.Error:
        return ""
    return LOCAL


def main() -> None:
    url = os.environ.get("DATABASE_URL", "")
    if url:
        where = "PostgreSQL" if url.startswith("postgres") else url.split(":", 1)[0]
        print(f"Tests run on {where} (DATABASE_URL).", file=sys.stderr)
    else:
        url = local_postgresql()
        if url:
            print(f"Tests run on PostgreSQL ({url}).", file=sys.stderr)
        else:
            print(
                "Tests run on SQLite: no PostgreSQL answered at 127.0.0.1:5432"
                " (set DATABASE_URL to use one).",
                file=sys.stderr,
            )
    print(url)


if __name__ == "__main__":
    main()
