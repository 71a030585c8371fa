# Two commands do everything on a fresh machine (Python 3.11+):
#   make demo   grade the bundled sample class, print the grade table, build the website
#   make test   the whole test suite (what CI runs)
# Both create .venv/ and install the exact pins of requirements.txt first.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: setup demo test bench bench-grading lab release site lint clean

$(STAMP): requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is needed"'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	bash scripts/ensure-system-packages.sh bwrap
	$(PY) -m autograder demo

test: $(STAMP)
	bash scripts/ensure-system-packages.sh chromium bwrap
	@# the hub's end-to-end test (tests/test_hub.py) runs as root only: its tools too
	@if [ "$$(id -u)" = 0 ]; then bash scripts/ensure-system-packages.sh npm venv; fi
	$(PY) -m ruff check .
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) -m benchmarks.bench

bench-grading: $(STAMP)
	bash scripts/ensure-system-packages.sh bwrap
	$(PY) -m benchmarks.grading --students 100 --workers 1 2 --schedulers local:2 --json build/grading-throughput.json

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
