# Forecaster Arena: every entry point is a make target. Each installs what it needs first.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

NODE_STAMP := node_modules/.installed
CHROMIUM := /usr/bin/chromium

.PHONY: help demo test lint typecheck unit bench synth clean java cost

# A supported Node.js (the npm package `node`, pinned in package.json) runs the CDK CLI and
# jsii, whatever node the system has: node_modules/.bin comes first on PATH.
export PATH := $(CURDIR)/node_modules/.bin:$(PATH)

help:
	@echo "make demo   - simulate two weeks offline on embedded AWS and write the site to ./site"
	@echo "              (options: make demo ARGS='--weeks 1 --faults'; see .venv/bin/arena demo -h)"
	@echo "make test   - lint, type-check and run the whole test suite (installs what it needs)"
	@echo "make synth  - synthesize the CDK app into cdk.out/ (offline), then cfn-lint and asl-validator"
	@echo "make bench  - print the benchmark figures"
	@echo "make cost   - the deployment's monthly AWS cost, line by line (arena cost)"

# Reinstall only when a dependency list changes: a second `make test` goes straight to the checks.
$(STAMP): requirements-dev.txt layers/arena_core/pyproject.toml local/pyproject.toml scripts/bootstrap-venv
	scripts/bootstrap-venv
	touch $@

# The main job: the whole system, simulated offline (see README "The demo").
demo: $(STAMP)
	$(BIN)/arena demo $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .

# The strict run and the tests' run at once, one per core (scripts/typecheck).
typecheck: $(STAMP)
	scripts/typecheck $(BIN)

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

# jsii (every synth: tests, demo, cdk) runs on the repository's Node: install it first.
demo bench: $(NODE_STAMP)

$(CHROMIUM):
	scripts/ensure-chromium

# DynamoDB Local (from npm) needs Java >= 17: checked on every run (instant when present).
java:
	@scripts/ensure-java

unit: $(STAMP) $(NODE_STAMP) $(CHROMIUM) java
	$(BIN)/pytest -n auto --dist loadfile --durations=20

test: lint typecheck unit

synth: $(STAMP) $(NODE_STAMP)
	cdk synth --quiet
	$(BIN)/python -m infra.validate cdk.out/ForecasterArena.template.json

bench: $(STAMP) $(NODE_STAMP) java
	@for b in bench/bench_*.py; do [ -e "$$b" ] || continue; echo "== $$b"; PYTHONPATH=$(CURDIR) $(BIN)/python "$$b"; done

cost: $(STAMP) $(NODE_STAMP)
	$(BIN)/arena cost $(ARGS)

clean:
	rm -rf $(VENV) node_modules .mypy_cache .ruff_cache .hypothesis test-artifacts
