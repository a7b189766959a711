# One task runner for the project. Every target works on a fresh machine with Python 3.9+
# and Java 17: it creates its own virtualenv and installs the plugin from its built wheel
# (non-editable, the way users install it, so dbt's plugin discovery is really exercised).
#
#   make test      every test (unit, packaging, generated-code, dbt CLI, emulator end-to-end)
#   make matrix    what CI runs (.ci/run): `make test` in two fresh venvs, lowest and newest dbt
#   make versions  the exact versions installed in $(VENV)
#   make demo      the main job: dbt deps + dbt run on integration_tests/ against the local emulator
#
# Override the tested versions, e.g. the lowest supported leg:
#   make test VENV=.venv-min DBT_CORE_SPEC='dbt-core~=1.9.0' DBT_ATHENA_SPEC='dbt-athena~=1.9.0'

PYTHON          ?= python3
VENV            ?= .venv
# dbt-core 1.12 is not excluded by the package (see pyproject.toml); it cannot be installed
# on the CI machines (a dependency downloads a binary at install time), so it is untested.
DBT_CORE_SPEC   ?= dbt-core>=1.9,<1.12
DBT_ATHENA_SPEC ?= dbt-athena>=1.9
PYTEST_ARGS     ?=

BIN    := $(VENV)/bin
STAMP  := $(VENV)/.deps-installed
SPECS  := $(VENV)/.dbt-specs.txt
# One build directory per venv, so parallel `make test` runs of different legs never share it.
DIST   := build/dist-$(subst .,,$(notdir $(VENV)))
TEST_DEPS := "pytest>=8" "hypothesis>=6.100" "moto[server]>=5.0" "pyspark==3.5.*" "pandas>=2" \
             "pyiceberg[glue,pyarrow]>=0.12" \
             "dbt-tests-adapter>=1.10" "build>=1.0" "hatchling>=1.18" "ruff>=0.5"
# The emulator (athena_spark_emulator) is imported from the installed wheel, like the
# plugin: after changing it, `make install` (every target below does) before running pytest.

.PHONY: help venv wheel install test unit lint matrix versions demo bench clean FORCE

help:
	@sed -n '2,12p' Makefile

# The dbt specs are also a pip constraints file, so no test dependency (dbt-tests-adapter,
# moto, ...) can move dbt-core or dbt-athena out of the leg's range. Rewritten only when the
# specs change, which then reinstalls.
$(SPECS): FORCE
	@mkdir -p $(VENV)
	@printf '%s\n' "$(DBT_CORE_SPEC)" "$(DBT_ATHENA_SPEC)" > $(SPECS).new
	@if cmp -s $(SPECS).new $(SPECS); then rm -f $(SPECS).new; else mv $(SPECS).new $(SPECS); fi

$(STAMP): $(SPECS) pyproject.toml Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c $(SPECS) "$(DBT_CORE_SPEC)" "$(DBT_ATHENA_SPEC)" $(TEST_DEPS)
	touch $(STAMP)

venv: $(STAMP)

wheel: $(STAMP)
	rm -rf $(DIST)
	$(BIN)/python -m build --no-isolation --wheel --sdist --outdir $(DIST) . >/dev/null
	@ls $(DIST)

# Non-editable install of the freshly built wheel.
install: wheel
	$(BIN)/python -m pip install -q --force-reinstall --no-deps $(DIST)/*.whl

# pytest exits 5 when it collected no test; make then fails like on any other non-zero code.
test: install
	@scripts/check-java.sh
	$(BIN)/python -m pytest $(PYTEST_ARGS)

unit: install
	$(BIN)/python -m pytest tests/unit $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check plugin tests integration_tests

versions: $(STAMP)
	@$(BIN)/python scripts/versions.py

matrix:
	bash .ci/run

demo: install
	@scripts/check-java.sh
	$(BIN)/python -m athena_spark_emulator.demo --project-dir integration_tests

bench: install
	$(BIN)/python bench/run.py

clean:
	rm -rf dist build .pytest_cache .hypothesis integration_tests/target integration_tests/dbt_packages integration_tests/logs
