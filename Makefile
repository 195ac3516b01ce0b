# The README's two commands: `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP_RUN  := $(VENV)/.installed-run
STAMP_TEST := $(VENV)/.installed-test

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

# ruff first (configured in pyproject.toml); then the suite on one pytest-xdist worker per core.
# pytest exit code 5 ("no tests collected") counts as a failure. BLAS runs one thread per process unless
# OMP_NUM_THREADS says otherwise: the workers' joblib jobs and app threads would oversubscribe the cores.
test: $(STAMP_TEST)
	$(VENV)/bin/ruff check .
	OMP_NUM_THREADS=$${OMP_NUM_THREADS:-1} $(PY) -m pytest -q -p no:cacheprovider -n auto --dist worksteal; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing"; exit 1; fi; exit $$rc

bench: $(STAMP_TEST)
	for f in benchmarks/bench_*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info
