# Two commands matter: `make run` and `make test`. Everything else is a step of theirs.
SHELL := /bin/bash
PYTHON_VERSION ?= 3.11
VENV := .venv
PY := $(VENV)/bin/python
UV := $(shell command -v uv 2>/dev/null || echo $(HOME)/.local/bin/uv)
HOST ?= 0.0.0.0
PORT ?= 3000
export LITELLM_LOCAL_MODEL_COST_MAP := True

.PHONY: build deps run test lint bench clean

build: deps

# uv comes from PyPI when it is missing; the venv follows uv.lock exactly.
$(UV):
	python3 -m pip install --quiet --user uv || python3 -m pip install --quiet uv

$(VENV)/.synced: pyproject.toml uv.lock | $(UV)
	$(UV) sync --frozen --python $(PYTHON_VERSION)
	touch $@

deps: $(VENV)/.synced

run: build
	$(PY) -m uvicorn openhands.server.listen:app --host $(HOST) --port $(PORT)

test: build
	$(PY) -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)

lint: deps
	$(VENV)/bin/ruff check openhands tests bench
	$(VENV)/bin/ruff format --check openhands tests bench

bench: build
	@for f in bench/*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) frontend/build
