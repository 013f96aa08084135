# Auspex: the single entry point. `make run` serves the app, `make test` runs tests and lint.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml constraints.txt | cksum | cut -d' ' -f1)
HOST   ?= 127.0.0.1
PORT   ?= 8000
export PYTHONDONTWRITEBYTECODE = 1

.PHONY: install run test test-sqlite test-postgres lint format bench soak fuzz migration messages browser clean

$(STAMP): pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[dev]'
	@rm -f $(VENV)/.installed-* && touch $@

install: $(STAMP)

run: install  ## migrate the embedded SQLite database, load the starter data, serve on HOST:PORT
	$(BIN)/auspex migrate
	$(BIN)/auspex seed
	$(BIN)/auspex serve --host $(HOST) --port $(PORT)

test: install lint browser  ## the whole suite on SQLite, again on Postgres when it answers
	$(BIN)/python -m pytest -n 2 -q -m "not e2e"
	$(BIN)/python -m pytest -q -m e2e
	$(BIN)/python scripts/with_postgres.py $(BIN)/python -m pytest -n 2 -q -m "not e2e" --ignore=tests/engine

test-sqlite: install
	$(BIN)/python -m pytest -n 2 -q -m "not e2e"

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy app
	$(BIN)/lint-imports

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: install  ## benchmarks: each prints ratios against a baseline measured in the same run
	@failed=""; for script in bench/bench_*.py; do echo "== $$script"; \
		$(BIN)/python $$script || failed="$$failed $$script"; done; \
		if [ -n "$$failed" ]; then echo "== missed a target or failed:$$failed"; exit 1; fi

soak: install  ## the tournament's mixed load for SOAK_SECONDS (600): nothing lost, flat memory (not CI)
	$(BIN)/python bench/soak.py

fuzz: install  ## schemathesis over the whole API, EXAMPLES requests per operation (SQLite, then Postgres)
	FUZZ_EXAMPLES=$(or $(EXAMPLES),200) $(BIN)/python -m pytest -q tests/test_api_fuzz.py
	FUZZ_EXAMPLES=$(or $(EXAMPLES),200) $(BIN)/python scripts/with_postgres.py $(BIN)/python -m pytest -q tests/test_api_fuzz.py
	SWEEP_EXAMPLES=40 FORM_EXAMPLES=30 COMMAND_STEPS=200 IMPORT_EXAMPLES=60 $(BIN)/python -m pytest -q tests/robustness

migration: install  ## make migration m="what changed"
	$(BIN)/alembic revision --autogenerate -m "$(m)"

messages: install  ## extract messages and merge them into the catalogues
	$(BIN)/python scripts/messages.py

browser:  ## Debian's Chromium for the end-to-end tests (Playwright cannot download browsers here)
	@command -v chromium >/dev/null 2>&1 || scripts/install_chromium.sh

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
