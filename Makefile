# Every target installs what it needs into .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)

.PHONY: demo test lint typecheck check bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	rm -f $(VENV)/.installed-*
	touch $@

demo: $(STAMP)  ## archive the sample sessions into an embedded Postgres
	ARCHIVIST_DATA_DIR=$(CURDIR)/.archivist $(BIN)/archivist demo

test: $(STAMP)  ## the whole test suite
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

check: lint typecheck test

bench: $(STAMP)
	$(BIN)/python scripts/bench_archive.py

clean:
	rm -rf $(VENV) .archivist .pytest_cache .mypy_cache .ruff_cache
