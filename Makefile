# The README's commands. Every target creates the environment first if it is missing.
#   make lab    JupyterLab on the course        make test   everything CI runs
#   make book   the course website (offline)    make doctor what this machine can run
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PORT ?= 8888
# The install stack (stacks/STACK.txt) follows the NVIDIA driver, asked through libcuda (a
# container may have a driver and no nvidia-smi): cu13 (driver R580+), cu12 (R525+), or cpu.
STACK ?= $(shell $(PYTHON) pdc/backends/_probe.py stack 2>/dev/null || echo cpu)
EXTRAS := course,dev,metal,$(if $(filter cpu,$(STACK)),ptx,cuda$(subst cu,,$(STACK)))
export PYDEVD_DISABLE_FILE_VALIDATION := 1

.PHONY: check-installs env lab test lint test-unit test-notebooks test-book book serve-book assign grade bench oracle doctor gpu-report clean

env: $(STAMP)

$(STAMP): pyproject.toml constraints.txt stacks/$(STACK).txt
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 10), "pdc needs Python >= 3.10, found " + sys.version.split()[0]'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=24"
	$(BIN)/python -m pip install --quiet -c constraints.txt -c stacks/$(STACK).txt -e ".[$(EXTRAS)]"
	$(BIN)/pdc doctor
	$(BIN)/python -m pdc.grade.warm  # what the ring exercise's checks compile, once per machine
	touch $(STAMP)

# notebooks/.lab/jupyter_server_config.py opens the first chapter and starts terminals in the course
# folder; the venv's bin/ leads PATH so that `pdc` works in JupyterLab terminals.
# notebooks/.lab/overrides.json turns off JupyterLab's news and update prompts.
lab: env
	mkdir -p $(VENV)/share/jupyter/lab/settings
	cp notebooks/.lab/overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json
	PATH="$(abspath $(BIN)):$$PATH" VIRTUAL_ENV="$(abspath $(VENV))" \
		$(BIN)/jupyter lab --config=notebooks/.lab/jupyter_server_config.py \
		$(if $(CI)$(NO_BROWSER),--no-browser,) --port=$(PORT) \
		$(if $(filter 0,$(shell id -u)),--allow-root,) $(JUPYTER_TOKEN_ARGS)

doctor: env
	$(BIN)/pdc doctor

lint: env
	$(BIN)/ruff check pdc tests book notebooks solutions
	$(BIN)/ruff format --check pdc tests
	$(BIN)/mypy

test-unit: env
	$(BIN)/pytest -n 2 --dist loadgroup --durations=30 tests --ignore-glob='tests/test_book*'

# Every supported install (no GPU, CUDA 12, CUDA 13, Colab- and Kaggle-like images) resolves
# against the package index: pip dry runs that read wheel metadata only (about 3 minutes).
# Then the built wheel alone, in a fresh environment: each notebook copied to an empty folder
# runs its setup and import cells, as one notebook opened on Colab does (about 5 minutes).
# The two run side by side: the dry runs mostly wait on the network.
check-installs: env
	$(BIN)/pytest -n 2 -m network -p no:cacheprovider tests/test_installs.py tests/test_hosted_wheel.py

test-notebooks: env
	$(BIN)/pytest -n 2 --dist loadfile --nbval notebooks solutions \
		--nbval-sanitize-with notebooks/sanitize.cfg -p no:cacheprovider

book: env
	$(BIN)/python book/build.py

# The book also works opened as files; served over http its search shows excerpts too.
BOOK_PORT ?= 8000
serve-book: env
	$(BIN)/python book/build.py --if-stale
	@echo "The course book: http://127.0.0.1:$(BOOK_PORT)/ (Ctrl-C stops it)"
	$(BIN)/python -m http.server --bind 127.0.0.1 --directory book/_build/html $(BOOK_PORT)

BOOK_TESTS = $(BIN)/pytest -n 2 --dist loadfile tests/test_book*.py
test-book: book
	$(BOOK_TESTS)

# The notebooks' tests and the book's build run side by side: the build is one process
# (Sphinx reads and writes the pages one after another), about two minutes on one core.
test: lint test-unit
	$(MAKE) --no-print-directory --output-sync=target -j2 test-notebooks book
	$(BOOK_TESTS)

assign: env
	$(BIN)/pdc assign solutions exercises

grade: env
	$(BIN)/pdc grade $(or $(SUBMISSION),solutions)

bench: env
	$(BIN)/pdc bench ring

# The differential tests' kept results of numba's CUDA simulator (tests/numba_oracle.py),
# run afresh and rewritten: after a kernel, a case's inputs or numba's version changes.
oracle: env
	for m in sim_diff sim_diff_corpus sim_diff_course; do \
	  NUMBA_ENABLE_CUDASIM=1 PDC_ORACLE=write $(BIN)/python -m tests.$$m >/dev/null || exit 1; \
	done

# On a machine with an NVIDIA GPU, with its own Python (never a new environment from a
# package registry): tests with PDC_BACKEND=cuda, every notebook, `pdc bench ring`.
# WHEELS=folder installs carried wheels with pip --no-index first. Here it stops at once.
OUT ?= gpu-report
# The course's own environment when it exists, unless PYTHON=... names another.
GPU_PYTHON := $(if $(filter command line environment,$(origin PYTHON)),$(PYTHON),$(if $(wildcard $(BIN)/python),$(BIN)/python,$(PYTHON)))
gpu-report:
	$(GPU_PYTHON) pdc/gpu_report/run.py --out "$(OUT)" $(if $(WHEELS),--wheels "$(WHEELS)",) $(GPU_REPORT_ARGS)

clean:
	rm -rf $(VENV) book/_build .pytest_cache
