# The whole set-up on a fresh machine is `make test` and `make run`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
# Every pip install takes its versions from constraints.txt (written by `make lock`).
PIP_INSTALL := $(PY) -m pip install -q -c constraints.txt
STAMP  := $(VENV)/.installed
# Tests, tools and the servers they start import this tree's code, whatever the
# venv's editable install points at (e.g. a venv shared by several git worktrees).
export PYTHONPATH := $(CURDIR)/service:$(CURDIR)/clients/python/src
# Each test runner notes its skipped tests here; `make test` lists them at its end.
export SCOPA_SKIPPED_DIR := $(CURDIR)/build/skipped
RUN_STAMP := $(VENV)/.installed-runtime
TS_DIR   := clients/typescript
TS_STAMP := $(TS_DIR)/node_modules/.installed
WEB_DIR   := clients/web
WEB_STAMP := $(WEB_DIR)/node_modules/.installed
OIDC_DIR   := tests/oidc
OIDC_STAMP := $(OIDC_DIR)/node_modules/.installed

.PHONY: test skipped-reset lint typecheck pytest pytest-compiled ts-test web-test web-screenshots check-deploy run run-compiled generate check-generated check-api lock bench bench-service mypyc clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

# Runtime dependencies only (`make run`).
$(RUN_STAMP): $(PY) pyproject.toml clients/python/pyproject.toml constraints.txt
	$(PIP_INSTALL) -e clients/python -e .
	touch $@

# Runtime plus the `dev` extra: linters, type checker, test and packaging tools (`make test`).
$(STAMP): $(PY) pyproject.toml clients/python/pyproject.toml constraints.txt
	$(PIP_INSTALL) -e clients/python -e '.[dev]'
	touch $@

# The TypeScript client's pinned tools (buf, protoc-gen-es, tsc) from its package-lock.json;
# tools/generate.py runs the same pinned buf for lint and breaking checks.
$(TS_STAMP): $(TS_DIR)/package.json $(TS_DIR)/package-lock.json
	cd $(TS_DIR) && npm ci --ignore-scripts --no-audit --no-fund
	touch $@

# The web client's pinned esbuild, TypeScript and playwright-core (clients/web/package-lock.json).
$(WEB_STAMP): $(WEB_DIR)/package.json $(WEB_DIR)/package-lock.json
	cd $(WEB_DIR) && npm ci --ignore-scripts --no-audit --no-fund
	touch $@

# A test that needs a system tool the machine lacks (nginx, chromium, ...) is skipped, naming the
# tool and its install command; SCOPA_REQUIRE_ALL=1 (.ci/run) fails it instead.
test: skipped-reset $(STAMP) $(OIDC_STAMP) lint typecheck check-generated check-api check-deploy pytest-compiled pytest ts-test web-test
	@$(PY) tools/skipped.py

skipped-reset: $(PY)
	@$(PY) tools/skipped.py --reset

# The identity tests' OpenID Connect provider (panva's oidc-provider, tests/oidc/package-lock.json).
$(OIDC_STAMP): $(OIDC_DIR)/package.json $(OIDC_DIR)/package-lock.json
	cd $(OIDC_DIR) && npm ci --ignore-scripts --no-audit --no-fund
	touch $@

# ruff, then the layer, purity and no-circle contracts of .importlinter (import-linter).
lint: $(STAMP)
	$(VENV)/bin/ruff check service tests bench tools
	$(VENV)/bin/ruff format --check service tests bench tools
	$(VENV)/bin/lint-imports

typecheck: $(STAMP)
	$(VENV)/bin/mypy

# The suite on every core (pytest-xdist): each test starts its own redis-server and servers on free
# ports, so workers share nothing.
pytest: $(STAMP) $(OIDC_STAMP) $(RUN_BUILD)
	$(if $(HAVE_CC),SCOPA_MYPYC_BUILD=$(CURDIR)/build/mypyc) $(PY) -m pytest -q -n auto

# tsc --strict, then node --test: complete games against real server processes on real Redis.
ts-test: $(STAMP) $(TS_STAMP)
	cd $(TS_DIR) && npm test

# The web client (clients/web) at http://localhost:8080/ unless SCOPA_WEB_UI is set otherwise.
# tsc --strict, then node --test: the web client played end to end in headless Chromium
# (Debian's /usr/bin/chromium or $$SCOPA_CHROMIUM; skipped, saying so, when there is none).
web-test: $(STAMP) $(WEB_STAMP)
	cd $(WEB_DIR) && npm test

# The same tests, then the screenshots they took copied into docs/images (docs/web-client.md).
web-screenshots: $(STAMP) $(WEB_STAMP)
	cd $(WEB_DIR) && SCOPA_SCREENSHOTS=../../docs/images npm test

# With a C compiler, the server runs its pure modules compiled by mypyc (build/mypyc, the same
# source; tools/build_mypyc.py), as the container image does; without one, interpreted.
HAVE_CC := $(shell command -v cc 2>/dev/null || command -v gcc 2>/dev/null)
ifneq ($(HAVE_CC),)
RUN_BUILD := mypyc
RUN_PATH := PYTHONPATH=build/mypyc
endif

run: $(RUN_STAMP) $(RUN_BUILD)
	SCOPA_WEB_UI=$${SCOPA_WEB_UI:-on} $(RUN_PATH) $(PY) -m scopa.server

# The server on the compiled build whatever the machine (fails without a C compiler).
run-compiled: mypyc
	SCOPA_WEB_UI=$${SCOPA_WEB_UI:-on} PYTHONPATH=build/mypyc $(PY) -m scopa.server

# deploy/: render each kustomize overlay, kubernetes-validate --strict, checkov, hadolint (offline).
# The tools live in their own venv: checkov pins libraries the service must not be bound by.
DEPLOY_VENV  := .venv-deploy
DEPLOY_STAMP := $(DEPLOY_VENV)/.installed

$(DEPLOY_STAMP): deploy/requirements.txt
	$(PYTHON) -m venv $(DEPLOY_VENV)
	$(DEPLOY_VENV)/bin/pip install -q --upgrade pip
	$(DEPLOY_VENV)/bin/pip install -q -r deploy/requirements.txt
	touch $(DEPLOY_STAMP)

check-deploy: $(STAMP) $(DEPLOY_STAMP)
	$(PY) tools/check_deploy.py --bin $(DEPLOY_VENV)/bin

generate: $(STAMP) $(TS_STAMP) $(WEB_STAMP)
	$(PY) tools/generate.py
	$(PY) tools/generate_ts.py
	$(PY) tools/generate_web.py

check-generated: $(STAMP) $(TS_STAMP) $(WEB_STAMP)
	$(PY) tools/generate.py --check --lint
	$(PY) tools/generate_ts.py --check
	$(PY) tools/generate_web.py --check

# buf breaking against the last release's API image (proto/releases/); lock.py --check makes sure
# constraints.txt pins every declared dependency.
check-api: $(STAMP) $(TS_STAMP)
	$(PY) tools/generate.py --breaking
	$(PY) tools/lock.py --check

# Re-resolve constraints.txt after editing dependencies in a pyproject.toml (needs the index).
lock: $(PY)
	$(PY) tools/lock.py

bench: mypyc
	$(PY) bench/engine.py --impl both

bench-service: $(STAMP)
	$(PY) bench/service.py

# The scopa package in build/mypyc with its pure modules compiled (rules, the bots' rollout path,
# the app's pure steps; needs a C compiler): compiled again only when one of their packages
# changes, the other sources copied again on every use.
MYPYC_STAMP := build/mypyc/.built

$(MYPYC_STAMP): $(STAMP) tools/build_mypyc.py $(wildcard service/scopa/rules/*.py service/scopa/bots/*.py service/scopa/app/*.py)
	$(PY) tools/build_mypyc.py
	touch $@

mypyc: $(MYPYC_STAMP)
	@$(PY) tools/build_mypyc.py --sync >/dev/null

# The tests of the compiled packages against the compiled build (but those marked
# interpreted_only: they patch a module constant compiled code inlined, or the like).
ifneq ($(HAVE_CC),)
pytest-compiled: mypyc
	PYTHONPATH=build/mypyc $(PY) -c "import scopa.app._views as v, scopa.rules._game as g; \
	  assert v.__file__.endswith('.so') and g.__file__.endswith('.so'), 'not compiled'"
	SCOPA_SKIPPED_NAME=pytest-compiled PYTHONPATH=build/mypyc:clients/python/src \
	  $(PY) -m pytest -q -n auto -p no:cacheprovider -m "not interpreted_only" \
	  tests/rules tests/app tests/bots
else
pytest-compiled:
	@if [ -n "$$SCOPA_REQUIRE_ALL" ]; then echo "pytest-compiled: no C compiler (cc, gcc)"; exit 1; fi
	@mkdir -p build/skipped
	@printf 'make pytest-compiled\tno C compiler: sudo apt-get install gcc\n' > build/skipped/make.txt
endif

clean:
	rm -rf $(VENV) $(DEPLOY_VENV) build .mypy_cache .ruff_cache .pytest_cache
