# One task runner for the project; `make help` lists the targets (from their `##` comments).
# Every target works on a fresh machine with Python 3.9+ and Java 17: it creates its own
# virtualenv (dbt-core and dbt-athena installed by scripts/install_dbt.py, which also installs
# dbt-core 1.12 where plain pip cannot) and installs the plugin from its built wheel
# (non-editable, the way users install it, so dbt's plugin discovery is really exercised).

## Overrides, e.g. the lowest supported leg:
##   make test VENV=.venv-min DBT_CORE_SPEC='dbt-core~=1.9.0' DBT_ATHENA_SPEC='dbt-athena~=1.9.0'
##   PYTHON           interpreter that creates the venv (python3)
##   VENV             the virtualenv to use (.venv)
##   DBT_CORE_SPEC    dbt-core to test (newest release, today 1.12.x)
##   DBT_ATHENA_SPEC  dbt-athena to test (newest release)
##   PYTEST_ARGS      extra pytest arguments, e.g. PYTEST_ARGS='-k doctor -x'
PYTHON          ?= python3
VENV            ?= .venv
DBT_CORE_SPEC   ?= dbt-core>=1.9
DBT_ATHENA_SPEC ?= dbt-athena>=1.9
PYTEST_ARGS     ?=
# A second venv with PySpark 4 for the Spark Connect tests (tests/connect/): Athena's Apache
# Spark 3.5 engine is reached over Spark Connect, and PySpark 4 is the release whose wheel
# starts a local Spark Connect server (PySpark 3.5 ships none). It holds no dbt: the tests
# render the code with dbt in VENV and run it there.
CONNECT_VENV    ?= $(VENV)-connect
CONNECT_DEPS    := "pyspark[connect]~=4.0.0"

BIN    := $(VENV)/bin
STAMP  := $(VENV)/.deps-installed
CONNECT_STAMP := $(CONNECT_VENV)/.deps-installed
SPECS  := $(VENV)/.dbt-specs.txt
# One build directory per venv, so parallel `make test` runs of different legs never share it.
DIST   := build/dist-$(subst .,,$(notdir $(VENV)))
# Test and lint tools. None may depend on dbt-core (scripts/install_dbt.py says why).
# mypy is kept on 1.19.x so that every leg's venv (dbt-core 1.11 pins pathspec<0.13, which
# mypy 2 does not accept) type-checks with the same mypy. The boto3-stubs extras are the
# AWS services the plugin calls; the types- packages are stubs for what the emulator imports.
# check-jsonschema (GitHub's workflow schema is bundled in it), zizmor (its --offline audits)
# and twine check the workflows and the release's files in `make lint`, with no network.
# Every package of pyproject's [emulator] and [test] extras, plus the lint tools
# (tests/packaging/test_dev_deps.py checks that none is missing).
TEST_DEPS := "pytest>=8" "pytest-randomly>=3.15" "hypothesis>=6.100" "moto[server]>=5.2,<5.2.6" "botocore<1.44.18" "pyspark==3.5.*" "pandas>=2" \
             "pyarrow>=18" "pyiceberg[glue,pyarrow,pyiceberg-core]>=0.12" "pyyaml>=6" "jsonschema>=4.18" "requests>=2.28" "sqlglot>=30.31" "werkzeug>=2.0" \
             "dbt-tests-adapter>=1.10" "build>=1.0" "hatchling>=1.18" "ruff~=0.17.0" \
             "mypy~=1.19.0" "boto3-stubs[athena,glue,s3,sts]>=1.28" "types-PyYAML" "types-jsonschema" \
             "check-jsonschema>=0.29" "zizmor>=1.0" "twine>=6.1"
# The emulator (athena_spark_emulator) is imported from the installed wheel, like the
# plugin: after changing it, `make install` (every target below does) before running pytest.

.PHONY: help venv venv-connect wheel install test unit lint matrix versions demo bench conformance clean FORCE

help: ## this list
	@echo "make TARGET [OVERRIDES]"
	@awk 'BEGIN { FS = ":.*## " } /^[a-z][a-z_-]*:.*## / { printf "  make %-9s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)
	@sed -n 's/^## \{0,1\}//p' $(MAKEFILE_LIST)

# The dbt specs, rewritten only when they change (which then reinstalls).
$(SPECS): FORCE
	@mkdir -p $(VENV)
	@printf '%s\n' "$(DBT_CORE_SPEC)" "$(DBT_ATHENA_SPEC)" > $(SPECS).new
	@if cmp -s $(SPECS).new $(SPECS); then rm -f $(SPECS).new; else mv $(SPECS).new $(SPECS); fi

# install_dbt.py pins the dbt-core and dbt-athena it selects as constraints, so no test
# dependency (dbt-tests-adapter, moto, ...) can move them out of the leg's range.
$(STAMP): $(SPECS) pyproject.toml Makefile scripts/install_dbt.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python scripts/install_dbt.py "$(DBT_CORE_SPEC)" "$(DBT_ATHENA_SPEC)" $(TEST_DEPS)
	touch $(STAMP)

venv: $(STAMP) ## create the venv (VENV) with dbt and the test tools (no plugin yet)

$(CONNECT_STAMP): Makefile
	test -x $(CONNECT_VENV)/bin/python || $(PYTHON) -m venv $(CONNECT_VENV)
	$(CONNECT_VENV)/bin/python -m pip install -q --upgrade pip
	$(CONNECT_VENV)/bin/python -m pip install -q $(CONNECT_DEPS)
	touch $(CONNECT_STAMP)

venv-connect: $(CONNECT_STAMP) ## create CONNECT_VENV (PySpark 4, a local Spark Connect server)

wheel: $(STAMP) ## build the sdist and the wheel into build/dist-*
	rm -rf $(DIST)
	$(BIN)/python -m build --no-isolation --wheel --sdist --outdir $(DIST) . >/dev/null
	@ls $(DIST)

install: wheel ## install the freshly built wheel into the venv (non-editable)
	$(BIN)/python -m pip install -q --force-reinstall --no-deps $(DIST)/*.whl

# pytest exits 5 when it collected no test; make then fails like on any other non-zero code.
# CONNECT=no skips building CONNECT_VENV: .ci/run passes it in the legs that do not run
# tests/connect/ (tests/conftest.py ONE_LEG_SUITES).
CONNECT ?= yes
test: install $(if $(filter yes,$(CONNECT)),$(CONNECT_STAMP)) ## every test: unit, packaging, generated code (Spark and Spark Connect), dbt CLI, emulator end to end
	@scripts/check-java.sh
	SPARK_CONNECT_PYTHON=$(abspath $(CONNECT_VENV))/bin/python $(BIN)/python -m pytest $(PYTEST_ARGS)

# tests/pure/ runs with only the plugin's own dependencies (tests/packaging/test_pure_tests_are_light.py
# proves it in a venv that has nothing else); tests/unit/ uses the test stack (moto, hypothesis).
unit: install ## the pure and unit tests only (seconds; no Spark, no dbt CLI)
	$(BIN)/python -m pytest tests/pure tests/unit $(PYTEST_ARGS)

# Configuration (rules, complexity limit, per-file exceptions and their reasons) is in
# pyproject.toml: [tool.ruff] and [tool.mypy]. The workflows are checked offline: against
# GitHub's workflow JSON Schema (bundled in check-jsonschema) and by zizmor, which fails on
# a finding of medium severity or above. The sdist and wheel are built as the release
# workflow builds them and checked as it checks them (twine check --strict, one version).
WORKFLOWS := .github/workflows/ci.yml .github/workflows/release.yml
lint: wheel ## ruff (checks incl. complexity C901, and the format), mypy on plugin/, the workflows (schema, zizmor), twine check and one version on the built sdist and wheel
	$(BIN)/ruff check plugin tests integration_tests bench scripts
	$(BIN)/ruff format --check plugin tests integration_tests bench scripts
	$(BIN)/mypy
	$(BIN)/check-jsonschema --builtin-schema vendor.github-workflows $(WORKFLOWS)
	$(BIN)/zizmor --offline --min-severity medium $(WORKFLOWS)
	$(BIN)/twine check --strict $(DIST)/*
	$(BIN)/python scripts/release_version.py --dist $(DIST)

versions: $(STAMP) ## the exact versions installed in the venv
	@$(BIN)/python scripts/versions.py

matrix: ## what CI runs (.ci/run): make test in three fresh venvs (dbt 1.9, 1.11, 1.12), make lint
	bash .ci/run

demo: install ## the main job: dbt deps + dbt run on integration_tests/ against the local emulator
	@scripts/check-java.sh
	$(BIN)/python -m athena_spark_emulator.demo --project-dir integration_tests

bench: install ## the benchmarks; writes bench/RESULTS.md (7 to 17 minutes, plus about 6 for the generated project with Spark), then prints the SQL engine and Spark probe figures
	$(BIN)/python bench/run.py
	$(BIN)/python bench/sql_engine.py
	$(BIN)/python bench/spark_probe.py

# Both corpora (tests/conformance/README.md), each entry in its literal form and in its four
# column forms (a Hive table, an Iceberg table, a view, an import CTE). CI runs the literal
# forms and a fixed sample of the column forms (tests/conformance/test_*.py); this is the full run.
conformance: install ## the conformance corpora, literal and column forms, in full (hours: the docs corpus took 24 minutes and 400 Trino entries 13.5 on 2 busy cores, so about 5 hours in all): counts per family and per form, and every form that disagrees with its literal form
	@scripts/check-java.sh
	$(BIN)/python bench/conformance.py --corpus all --forms

clean: ## remove build output and dbt/pytest caches (not the venvs)
	rm -rf dist build .pytest_cache .hypothesis integration_tests/target integration_tests/dbt_packages integration_tests/logs
