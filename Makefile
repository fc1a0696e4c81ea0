# `make reports` and `make test` are the whole set-up: each creates .venv from pyproject.toml when missing.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
EXTRAS ?= test

.PHONY: test reports audit verify bench lint crosscheck gradcheck train notes-check clean

# PYTHONWARNINGS: the build backend warns about editable installs in general (ten lines with
# nothing to act on)
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	PYTHONWARNINGS=ignore $(PY) -m pip install -q -e '.[$(EXTRAS)]'
	touch $(STAMP)

# two workers (pytest-xdist), one per core; a file's tests run in one of them, the longest files
# first (tests/conftest.py: LONGEST_FIRST; the scheduler would otherwise start the files with the
# most tests first);
# PYTEST_FLAGS passes more, e.g. -rs to list the skips (.ci/run)
TEST_WORKERS ?= 2

test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder $(PYTEST_FLAGS)

# CLAIMS="my_claims.py other.py" adds your own claims as a section "Your derivations"
reports: $(STAMP)
	$(PY) -m reports build $(if $(CLAIMS),--claims $(CLAIMS))

# the errata report of your own notes, e.g. make audit NOTES=examples/notes/notes
#   REGISTRY=examples/notes/registry.toml CLAIMS=examples/notes/claims.py (paths from the project)
AUDIT_OUT ?= build/audit
audit: $(STAMP)
	$(PY) -m reports audit $(NOTES) --registry $(REGISTRY) $(if $(CLAIMS),--claims $(CLAIMS)) --out $(AUDIT_OUT)

verify: $(STAMP)
	$(PY) -m derivations verify

crosscheck: $(STAMP)
	$(PY) -m numeric.crosscheck

gradcheck: $(STAMP)
	$(PY) -m numeric.gradcheck

train: $(STAMP)
	$(PY) -m numeric.train

bench: $(STAMP)
	$(PY) -m numeric.bench

notes-check: $(STAMP)
	$(PY) -m reports.audit.notes check ../shared/notes

lint: $(STAMP)
	$(PY) -m ruff check .

clean:
	rm -rf reports/build .pytest_cache .ruff_cache
