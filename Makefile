# Two set-up commands do everything on a fresh machine: `make run` and `make test`.
# Each installs what is missing (Python venv + deps from pyproject.toml, node deps with
# `npm ci` from node/package-lock.json) and then does its job.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PY_STAMP   := $(VENV)/.mcbot-installed
NODE_STAMP := node/node_modules/.mcbot-installed

.PHONY: install run test test-unit test-integration test-node soak-fast server bench clean

install: $(PY_STAMP) $(NODE_STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(PY_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

$(NODE_STAMP): node/package.json node/package-lock.json
	cd node && npm ci --no-audit --no-fund
	touch $@

run: install
	$(BIN)/mcbot run

server: install
	$(BIN)/mcbot server

test: install
	$(BIN)/pytest
	cd node && node --test test/
	scripts/soak.sh 3 --fast

test-unit: install
	$(BIN)/pytest -m "not integration"

test-integration: install
	$(BIN)/pytest -m integration

test-node: install
	cd node && node --test test/

soak-fast: install
	scripts/soak.sh 3 --fast

bench: install
	$(BIN)/mcbot bench bridge

clean:
	rm -rf $(VENV) node/node_modules .pytest_cache
