# Everything runs through .venv/bin/...; no activation needed.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
DOCS_STAMP := $(VENV)/.installed-docs

.PHONY: install install-dev run test lint typecheck layering unit format bench bench-http bench-scale soak storm docs

# What the service needs to run (make run); the development tools come with install-dev.
install: $(STAMP)

install-dev: $(DEV_STAMP)

# Re-installs only when the dependency declaration or the pins change.
$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -c constraints.txt -e .
	touch $(STAMP)

$(DEV_STAMP): $(STAMP)
	$(BIN)/python -m pip install -c constraints.txt -e '.[dev]'
	touch $(DEV_STAMP)

$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install -c constraints.txt -e '.[docs]'
	touch $(DOCS_STAMP)

run: install
	$(BIN)/booking db upgrade
	$(BIN)/booking demo
	$(BIN)/booking serve

test: install-dev
	$(MAKE) lint
	$(MAKE) typecheck
	$(MAKE) layering
	$(BIN)/python -m pytest tests/unit tests/integration tests/e2e

lint: install-dev
	$(BIN)/ruff check src tests
	$(BIN)/ruff format --check src tests

typecheck: install-dev
	$(BIN)/mypy --strict src/booking_core

layering: install-dev
	$(BIN)/lint-imports

format: install-dev
	$(BIN)/ruff format src tests
	$(BIN)/ruff check --fix src tests

bench: install-dev
	$(BIN)/python benchmarks/bench_availability.py

bench-http: install-dev
	$(BIN)/python benchmarks/bench_http.py

# Minutes of mixed traffic on PostgreSQL (SOAK_SECONDS, default 300); not part of `make test`.
soak: install-dev
	$(BIN)/python benchmarks/soak.py

# Seeds a fresh PostgreSQL database at platform size (SCALE_* variables, docs/scale.md), then
# compares each endpoint with the same on a small database. Takes about half an hour at full size.
bench-scale: install-dev
	$(BIN)/python benchmarks/bench_scale.py

# The webhook storm at the issue's size (1,000 events for 200 bookings, each delivered twice, on
# PostgreSQL with 4 server processes); make test runs it scaled down. Prints the figures.
STORM_BOOKINGS ?= 200
storm: install-dev
	BOOKING_STORM_BOOKINGS=$(STORM_BOOKINGS) $(BIN)/python -m pytest tests/e2e/test_webhook_storm.py -q -s

# The documentation site (mkdocs.yml, docs/) into site/; --strict turns every warning, a broken link
# or anchor among them, into a failure. Not part of `make test`, which needs no docs tools.
docs: $(DOCS_STAMP)
	$(BIN)/mkdocs build --strict --site-dir site
