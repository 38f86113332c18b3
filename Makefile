# Two entry points (README): `make run` and `make test`. Both create .venv and
# install schedlab into it first (repeated only when pyproject.toml changes), then compile
# its hot loops ahead of time (schedlab precompile: about a minute the first time,
# again after a kernel changes, and a check of well under a second when they are
# current). `make lint` runs the static checks.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
OUT ?= out/compare

.PHONY: compiled run test test-all lint bench clean

$(BIN)/schedlab: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

compiled: $(BIN)/schedlab
	$(BIN)/schedlab precompile

# The main job: compare the classic policies on the built-in Lublin-Feitelson
# workload (10,000 jobs, 128 processors); table on screen, figure in $(OUT).
run: compiled
	$(BIN)/schedlab compare lublin --out $(OUT)

# The test suite without the slow reproduction runs (what CI runs).
test: compiled
	$(BIN)/python -m pytest -m "not slow" -q

# Everything, slow reproduction runs included.
test-all: compiled
	$(BIN)/python -m pytest -q

# Static checks, as pyproject.toml configures them: ruff over the code, the
# tests and the benchmarks; mypy over the package.
lint: $(BIN)/schedlab
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy

bench: compiled
	$(BIN)/python bench/run_bench.py

clean:
	rm -rf $(VENV) out .pytest_cache .hypothesis
