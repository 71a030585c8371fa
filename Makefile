# Two commands do everything on a fresh machine (Python 3.11+):
#   make demo   grade the bundled sample class, print the grade table, build the website
#   make test   the test suite's fast tier (what CI runs): every failure mode, smaller sizes
# Both create .venv/ and install the exact pins of requirements.txt first.
#   make test-full   the full tier: everything at full size, and the hub's end-to-end test

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

# pytest-xdist workers for the test tiers (the suite is sized for 2 cores). Each test module
# runs whole on one worker, its fixtures once, but for the conformance sweeps, whose tests go
# one at a time to whichever worker is free, last; the longest modules start first
# (tests/conftest.py: LONGEST_FIRST, SHARED_OUT, pytest_xdist_make_scheduler). PYTEST_WORKERS=0 runs everything in one process.
PYTEST_WORKERS ?= 2
# Bytecode for the project's own modules, as pip writes it for an installed package: a
# process that imports reftensor from this checkout then loads it rather than compiling every
# module again (where PYTHONDONTWRITEBYTECODE is set, every process would); quick when fresh.
COMPILE := $(PY) -m compileall -q -j 0 reftensor autograder benchmarks tests
PYTEST := $(PY) -m pytest $(if $(filter 0,$(PYTEST_WORKERS)),-p no:xdist,-n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder)

.PHONY: setup demo test test-full bench bench-grading lab release site lint clean

# rfc3987-syntax (an optional part of jsonschema that jupyter-events asks for) builds a
# parser at import time: 1.2 s in every process that imports nbformat (each grading sandbox,
# each nbgrader command, each kernel's tools). No schema the course uses has an "iri" format,
# the only thing it checks, so it is removed; jsonschema skips that check without it.
$(STAMP): requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is needed"'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -e .
	$(PY) -m pip uninstall --quiet --disable-pip-version-check --yes rfc3987-syntax
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	bash scripts/ensure-system-packages.sh bwrap
	$(PY) -m autograder demo

test: $(STAMP)
	bash scripts/ensure-system-packages.sh chromium bwrap
	$(PY) -m ruff check .
	$(COMPILE)
	$(PYTEST)

test-full: $(STAMP)
	bash scripts/ensure-system-packages.sh chromium bwrap
	@# the hub's end-to-end test (tests/test_hub.py) runs as root only: its tools too
	@if [ "$$(id -u)" = 0 ]; then bash scripts/ensure-system-packages.sh npm venv; fi
	$(PY) -m ruff check .
	$(COMPILE)
	REFTENSOR_TEST_TIER=full $(PYTEST)

bench: $(STAMP)
	$(COMPILE)
	$(PY) -m benchmarks.bench

bench-grading: $(STAMP)
	bash scripts/ensure-system-packages.sh bwrap
	$(PY) -m benchmarks.grading --students 100 --workers 1 2 --schedulers local:2 --startup --json build/grading-throughput.json

# The course opens on the student edition of reftensor (course/reftensor, written by
# `make release`): it is first on the kernels' PYTHONPATH. `make lab EDITION=reference` opens
# it on the repository's complete reftensor instead.
EDITION ?= student
LAB_PATH := $(if $(filter reference,$(EDITION)),,PYTHONPATH=$(CURDIR)/course)

lab: $(STAMP)
	@if [ "$$(id -u)" = 0 ]; then \
	  echo "make lab: running as root (a container?), so JupyterLab is started with --allow-root"; \
	  $(LAB_PATH) $(VENV)/bin/jupyter lab --allow-root course/; \
	else \
	  $(LAB_PATH) $(VENV)/bin/jupyter lab course/; \
	fi

release: $(STAMP)
	$(PY) -m autograder release

site: $(STAMP)
	$(PY) -m autograder site --out build/site
	@echo "open build/site/index.html"

lint: $(STAMP)
	$(PY) -m ruff check .

clean:
	rm -rf build
