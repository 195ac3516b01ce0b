# The README's two commands: `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP_RUN  := $(VENV)/.installed-run
STAMP_TEST := $(VENV)/.installed-test
XDIST_N ?= $(shell $(PYTHON) -c 'import os; print((os.cpu_count() or 1) + 1)')

.PHONY: run test install install-test bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip

$(STAMP_RUN): pyproject.toml | $(PY)
	$(PY) -m pip install -e .
	touch $@

$(STAMP_TEST): pyproject.toml | $(PY)
	$(PY) -m pip install -e ".[test,distributed]"
	touch $@ $(STAMP_RUN)

install: $(STAMP_RUN)
install-test: $(STAMP_TEST)

# Streamlit reads STREAMLIT_SERVER_PORT, STREAMLIT_SERVER_ADDRESS, ... from the environment.
run: $(STAMP_RUN)
	$(VENV)/bin/streamlit run app.py

# ruff first (configured in pyproject.toml); then the suite on pytest-xdist workers, one more than the cores:
# the browser and server tests wait on chromium and a server for part of their time (benchmarks/RESULTS.md,
# "the test suite's time"). Each worker's first share starts with long tests (tests/conftest.py): the browser
# tests all on one worker (one server and chromium for them all), the tests marked slow on the others.
# pytest exit code 5 ("no tests collected") counts as a failure. BLAS runs one thread per process unless
# OMP_NUM_THREADS says otherwise: the workers' joblib jobs and app threads would oversubscribe the cores.
test: $(STAMP_TEST)
	$(VENV)/bin/ruff check .
	OMP_NUM_THREADS=$${OMP_NUM_THREADS:-1} $(PY) -m pytest -q -p no:cacheprovider -n $(XDIST_N) --dist worksteal; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing"; exit 1; fi; exit $$rc

bench: $(STAMP_TEST)
	for f in benchmarks/bench_*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info
