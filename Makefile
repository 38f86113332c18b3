# Two entry points (README): `make run` and `make test`. Both create .venv and
# install schedlab into it first, then compile its hot loops (schedlab precompile); the
# install is repeated only when pyproject.toml changes. `make lint` runs the static checks.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
OUT ?= out/compare

.PHONY: run test test-all lint bench clean

$(BIN)/schedlab: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test]'
	$(BIN)/schedlab precompile
	touch $@

# The main job: compare the classic policies on the built-in Lublin-Feitelson
# workload (10,000 jobs, 128 processors); table on screen, figure in $(OUT).
run: $(BIN)/schedlab
	$(BIN)/schedlab compare lublin --out $(OUT)

# The test suite without the slow reproduction runs (what CI runs).
test: $(BIN)/schedlab
	$(BIN)/python -m pytest -m "not slow" -q

# Everything, slow reproduction runs included.
test-all: $(BIN)/schedlab
	$(BIN)/python -m pytest -q

# Static checks, as pyproject.toml configures them: ruff over the code, the
# tests and the benchmarks; mypy over the package.
lint: $(BIN)/schedlab
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy

bench: $(BIN)/schedlab
	$(BIN)/python bench/run_bench.py

clean:
	rm -rf $(VENV) out .pytest_cache .hypothesis
