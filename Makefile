# tarot_club — the two commands: `make run` and `make test` (see README.md).
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
# DEBUG stays off unless asked for (`DEBUG=1 make run`); serving beyond this machine
# (HOST not a loopback address) always runs with it off.

.PHONY: run test setup messages makemessages migrate demo lint format bench guide clean

$(VENV)/.installed: requirements.txt requirements-dev.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install --quiet --upgrade pip
	@$(PY) -m pip install --quiet -r requirements-dev.txt
	@touch $@

setup: $(VENV)/.installed messages .secret_key

# A secret key for this checkout (git ignores it); deployments set SECRET_KEY instead.
.secret_key:
	@umask 077 && $(PYTHON) -c "import secrets; print(secrets.token_urlsafe(50))" > $@

messages: $(VENV)/.installed .secret_key
	@$(PY) manage.py compile_translations

makemessages: $(VENV)/.installed
	$(PY) manage.py makemessages -l fr -l en --ignore=.venv --ignore=var --ignore=bench

migrate: setup
	@$(PY) manage.py migrate --noinput

demo: migrate
	@$(PY) manage.py load_demo

run: demo
	@PORT=$(PORT) $(PY) manage.py serve

lint: $(VENV)/.installed
	@$(VENV)/bin/ruff check .
	@$(VENV)/bin/ruff format --check .
	@$(VENV)/bin/lint-imports --no-cache >/dev/null || $(VENV)/bin/lint-imports --no-cache

format: $(VENV)/.installed
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

# axe-core for the accessibility tests (tests/a11y), from npm, pinned by its lock file.
AXE := tests/a11y/node_modules/axe-core/axe.min.js
$(AXE): tests/a11y/package.json tests/a11y/package-lock.json
	@if command -v npm >/dev/null; then npm ci --prefix tests/a11y --no-audit --no-fund --silent; \
	else echo "npm is missing: the accessibility tests cannot run (a failure in CI)"; fi

test: setup lint $(AXE)
	@$(PY) manage.py makemigrations --check --dry-run >/dev/null || (echo "Models changed without a migration: run manage.py makemigrations" && exit 1)
	@DATABASE_URL="$$($(PY) tests/database_url.py)" $(PY) tests/lanes.py $(PYTEST_ARGS)

# The user guide's screenshots (docs/guide/img/), made from the demo in Chromium.
guide: setup
	@$(PY) manage.py guide_screenshots

bench: setup
	@for script in bench/bench_*.py; do echo "== $$script"; $(PY) $$script || exit 1; done

clean:
	rm -rf $(VENV) db.sqlite3 test_db*.sqlite3 var staticfiles
