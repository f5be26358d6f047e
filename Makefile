# Two commands do all the set-up on a fresh machine: `make serve` and `make test`.
# Each step is idempotent: a stamp file records what was installed from which manifest.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
HTMX   := static/vendor/htmx.min.js
AXE    := node_modules/axe-core/axe.min.js
CHROMIUM ?= /usr/bin/chromium

.PHONY: setup setup-test contract serve test test-fast bench bench-peer lint browser postgres clean

setup: $(VENV)/.app-installed $(HTMX) contract

setup-test: setup $(VENV)/.test-installed $(AXE) browser postgres

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(VENV)/.app-installed: pyproject.toml | $(PY)
	$(PY) -m pip install -q -e .
	$(PY) -c "import witness.models.kernels, witness.serve.chain"  # compile the kernels once, into their disk cache
	touch $@

# The test set-up adds the `test` extra and the `train` extra: PyTorch 2.13.0, the CPU build
# (pip takes it from this machine's disk; the exact pin keeps a multi-GB CUDA build out), for
# the tests that hold the training script and the numpy inference to torch. Only `make test`
# installs it: `make serve`'s set-up never does, and the station never imports it
# (tests/test_torch_extra.py).
$(VENV)/.test-installed: pyproject.toml $(VENV)/.app-installed
	$(PY) -m pip install -q -e '.[test,train]'
	touch $@

# npm ci installs exactly what package-lock.json pins (htmx 2.0.x, axe-core).
node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(AXE): node_modules/.package-lock.json

$(HTMX): node_modules/.package-lock.json
	mkdir -p static/vendor
	cp node_modules/htmx.org/dist/htmx.min.js $@

# The route contract's generated files (docs/route-memory.schema.json and static/js/contract.js,
# committed; static/vendor/route-memory-validator.js, a build product) are made from
# app/contract/route.py and witness/core/settings.py, after npm ci has installed the validator's
# compiler (ajv, esbuild). It rewrites only what changed; a test fails if they are stale.
contract: $(VENV)/.app-installed node_modules/.package-lock.json
	$(PY) -m app.contract.generate

# The browser tests drive Debian's chromium; install it when missing and we are root.
browser:
	@if [ ! -x "$(CHROMIUM)" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian chromium (apt)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "chromium is missing at $(CHROMIUM): run 'sudo apt-get install chromium'" >&2; exit 1; \
	  fi; \
	fi

# The live class's storage tests run on PostgreSQL as well as SQLite, in a throwaway cluster
# they start themselves (tests/app/classes/conftest.py): install Debian's postgresql when
# initdb is missing and we are root; otherwise those tests are skipped, saying why.
postgres:
	@if ! command -v initdb >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian postgresql (apt)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
	  else \
	    echo "PostgreSQL is missing: its storage tests will be skipped ('sudo apt-get install postgresql' runs them)" >&2; \
	  fi; \
	fi

serve: setup
	$(PY) -m app

# One worker per core (pytest-xdist); each worker that runs browser tests starts its own live
# server and chromium. A test that runs an event loop itself does so on a thread of its own
# (tests/loops.py): Playwright keeps one running on a worker's main thread. Work stealing:
# the tests take from 0.01 to 48 s, and with xdist's default split the last long tests left
# one core idle (2026-12-02: 1 112 s of wall time for 861 s of tests per worker; 1 008 s for
# 976 with worksteal).
XDIST := -n auto --dist worksteal

test: setup-test lint
	$(PY) -m pytest $(XDIST)

# Everything but the real-browser tests: a quick loop while editing.
test-fast: setup-test
	$(PY) -m pytest $(XDIST) -m "not browser"

lint: setup-test
	$(VENV)/bin/ruff check witness app tests bench
	$(VENV)/bin/mypy

bench: setup
	$(PY) bench/witness.py

# bench/peer.py against Hugging Face transformers, in a venv of its own (the 'peer' extra: CPU
# torch and transformers, which the station and CI never install).
PEER_VENV ?= $(VENV)/peer
bench-peer:
	test -x $(PEER_VENV)/bin/python || $(PYTHON) -m venv $(PEER_VENV)
	$(PEER_VENV)/bin/pip install -q -e '.[peer]'
	$(PEER_VENV)/bin/python bench/peer.py

clean:
	rm -rf $(VENV) node_modules static/vendor .pytest_cache .mypy_cache .ruff_cache .hypothesis
