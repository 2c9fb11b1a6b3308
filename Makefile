# Everything runs through .venv/bin/...; no activation needed.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install run test lint typecheck layering unit format bench bench-http

install: $(STAMP)

# Re-installs only when the dependency declaration or the pins change.
$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -c constraints.txt -e '.[dev]'
	touch $(STAMP)

run: install
	$(BIN)/booking db upgrade
	$(BIN)/booking demo
	$(BIN)/booking serve

test: install
	$(MAKE) lint
	$(MAKE) typecheck
	$(MAKE) layering
	$(BIN)/python -m pytest tests/unit tests/integration

lint: install
	$(BIN)/ruff check src tests
	$(BIN)/ruff format --check src tests

typecheck: install
	$(BIN)/mypy --strict src/booking_core

layering: install
	$(BIN)/lint-imports

format: install
	$(BIN)/ruff format src tests
	$(BIN)/ruff check --fix src tests

bench: install
	$(BIN)/python benchmarks/bench_availability.py

bench-http: install
	$(BIN)/python benchmarks/bench_http.py
