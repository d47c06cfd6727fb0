# Two commands matter: `make run` and `make test`. Everything else is a step of theirs,
# and every step is skipped when its result is already up to date.
SHELL := /bin/bash
PYTHON_VERSION ?= 3.11
VENV := .venv
PY := $(VENV)/bin/python
UV := $(shell command -v uv 2>/dev/null || echo $(HOME)/.local/bin/uv)
# Loopback only: the OSS API has no login. See README "Exposing the server" before changing.
HOST ?= 127.0.0.1
PORT ?= 3000
IS_ROOT := $(shell [ "$$(id -u)" = 0 ] && echo yes)
export LITELLM_LOCAL_MODEL_COST_MAP := True

FRONTEND_SOURCES := $(shell find frontend/src frontend/index.html frontend/vite.config.ts \
	frontend/tsconfig.json frontend/package.json -type f 2>/dev/null)

.PHONY: build deps frontend sandbox-image docker-engine browser tmux run test test-python \
	test-frontend lint bench bench-compare clean services cluster cluster-down

build: deps frontend sandbox-image-if-engine

# --- Python -----------------------------------------------------------------------------
# uv comes from PyPI when it is missing; the venv follows uv.lock exactly.
$(UV):
	python3 -m pip install --quiet --user uv || python3 -m pip install --quiet uv

$(VENV)/.synced: pyproject.toml uv.lock | $(UV)
	$(UV) sync --frozen --all-extras --python $(PYTHON_VERSION)
	touch $@

deps: $(VENV)/.synced

# --- UI -----------------------------------------------------------------------------------
frontend/node_modules/.installed: frontend/package.json frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund --loglevel=error
	touch $@

frontend/build/index.html: frontend/node_modules/.installed $(FRONTEND_SOURCES)
	cd frontend && npm run build
	touch $@

frontend: frontend/build/index.html

# --- sandbox ------------------------------------------------------------------------------
docker-engine:
	bash containers/dev/ensure-docker.sh

# Builds the runtime image unless one with the same content hash exists (then: seconds).
sandbox-image: deps docker-engine
	$(PY) -m openhands.runtime.utils.runtime_build

# `make build` prepares the image when an engine is (or can be made) available.
.PHONY: sandbox-image-if-engine
sandbox-image-if-engine: deps
	@if docker info >/dev/null 2>&1 || [ "$(IS_ROOT)" = yes ]; then \
		$(MAKE) --no-print-directory sandbox-image; \
	else \
		echo "No Docker engine: skipping the sandbox image (the docker runtime will build it)."; \
	fi

# Debian's Chromium for the browser tests (a browser download is not possible here).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
		[ "$(IS_ROOT)" = yes ] || { echo "chromium is missing: apt-get install -y chromium"; exit 1; }; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium \
			>/dev/null 2>&1 || { apt-get update -q >/dev/null && \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium; }; }

# tmux: the bash sessions of the local runtime and the terminal-app journeys (tests/e2e)
# run in it, about 60 tests; installed like chromium above.
tmux:
	@command -v tmux >/dev/null 2>&1 || { \
		[ "$(IS_ROOT)" = yes ] || { echo "tmux is missing: apt-get install -y tmux"; exit 1; }; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends tmux \
			>/dev/null 2>&1 || { apt-get update -q >/dev/null && \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends tmux; }; }

# Redis, PostgreSQL, nginx and docker-registry binaries for the scale-out tests (issue 13).
# Only installed: each test and `make cluster` starts its own daemons on loopback.
services:
	bash containers/dev/ensure-services.sh

# --- the two commands -----------------------------------------------------------------------
# One warm Docker sandbox, so the first conversation starts at once (0 turns the pool off).
SANDBOX_WARM_POOL_SIZE ?= 1
run: build
	SANDBOX_WARM_POOL_SIZE=$(SANDBOX_WARM_POOL_SIZE) \
		$(PY) -m uvicorn openhands.server.listen:app --host $(HOST) --port $(PORT)

test: deps lint frontend sandbox-image browser tmux services test-frontend test-python

test-frontend: frontend/node_modules/.installed
	cd frontend && npm test --silent

test-python: deps
	$(PY) -m pytest -q $(PYTEST_ARGS)

# --- the rest ---------------------------------------------------------------------------------
lint: deps
	$(VENV)/bin/ruff check openhands tests bench
	$(VENV)/bin/ruff format --check openhands tests bench
	$(VENV)/bin/mypy openhands

# The scale-out deployment of docs/scaling.md on this machine (loopback only).
cluster: build services docker-engine
	$(PY) containers/cluster/cluster.py up

cluster-down:
	$(PY) containers/cluster/cluster.py down

bench: build
	@for f in bench/*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

# Ours against the published openhands-ai 0.59.0 (installed into .bench/, never copied).
bench-compare: deps
	$(PY) bench/compare/run.py

clean:
	rm -rf $(VENV) frontend/build frontend/node_modules
