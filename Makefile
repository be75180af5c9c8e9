# Every target installs what it needs into .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)

.PHONY: demo test lint typecheck check bench bench-search bench-reembed bench-client eval soak clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,mcp]'
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

bench: $(STAMP)  ## archive throughput and memory
	$(BIN)/python scripts/bench_archive.py

bench-search: $(STAMP)  ## search latency and recall at 100k chunks / versions
	$(BIN)/python scripts/bench_search.py

bench-reembed: $(STAMP)  ## reembed throughput at 10k chunks (768-d -> 384-d)
	$(BIN)/python scripts/bench_reembed.py

bench-client: $(STAMP)  ## per-call overhead of one warm Archivist client over the SQL function
	$(BIN)/python scripts/bench_client.py

eval: $(STAMP)  ## retrieval quality on the labelled set, per ranking mode
	$(BIN)/python scripts/eval_retrieval.py

soak: $(STAMP)  ## kill -9 the archive run 50+ times (ARCHIVIST_SOAK_KILLS, ARCHIVIST_FAULT_SEED)
	$(BIN)/python scripts/soak.py

clean:
	rm -rf $(VENV) .archivist .pytest_cache .mypy_cache .ruff_cache
