# One task runner for the project. Every target works on a fresh machine with Python 3.9+
# and Java 17: it creates its own virtualenv and installs the plugin from its built wheel
# (non-editable, the way users install it, so dbt's plugin discovery is really exercised).
#
#   make test    every test (unit, generated-code, dbt CLI, emulator end-to-end)
#   make demo    the main job: dbt deps + dbt run on integration_tests/ against the local emulator
#
# Override the tested versions, e.g. the lowest supported leg:
#   make test VENV=.venv-min DBT_CORE_SPEC='dbt-core~=1.9.0' DBT_ATHENA_SPEC='dbt-athena~=1.9.0'

PYTHON          ?= python3
VENV            ?= .venv
DBT_CORE_SPEC   ?= dbt-core>=1.9,<1.12
DBT_ATHENA_SPEC ?= dbt-athena>=1.9
PYTEST_ARGS     ?=

BIN    := $(VENV)/bin
STAMP  := $(VENV)/.deps-installed
export PYTHONPATH := $(CURDIR)/integration_tests

.PHONY: help venv wheel install test unit lint demo bench clean

help:
	@sed -n '2,12p' Makefile

$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q "$(DBT_CORE_SPEC)" "$(DBT_ATHENA_SPEC)" \
	    "pytest>=8" "hypothesis>=6.100" "moto[server]>=5.0" "pyspark==3.5.*" "pandas>=2" \
	    "dbt-tests-adapter>=1.10" "build>=1.0" "hatchling>=1.18" "ruff>=0.5"
	touch $(STAMP)

venv: $(STAMP)

wheel: $(STAMP)
	rm -rf dist
	$(BIN)/python -m build --no-isolation --wheel --sdist --outdir dist . >/dev/null
	@ls dist

# Non-editable install of the freshly built wheel.
install: wheel
	$(BIN)/python -m pip install -q --force-reinstall --no-deps dist/*.whl

test: install
	@scripts/check-java.sh
	$(BIN)/python -m pytest $(PYTEST_ARGS)

unit: install
	$(BIN)/python -m pytest tests/unit $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check plugin tests integration_tests

demo: install
	@scripts/check-java.sh
	$(BIN)/python -m athena_spark_emulator.demo

bench: install
	$(BIN)/python bench/run.py

clean:
	rm -rf dist build .pytest_cache .hypothesis integration_tests/target integration_tests/dbt_packages integration_tests/logs
