# Dynamic Batching Lab. `make help` lists the targets; README gives the two you need.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8888
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
export PATH := $(abspath $(VENV))/bin:$(PATH)
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export HF_HUB_DISABLE_PROGRESS_BARS := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: help lab install install-test test test-fast doctor release collect autograde feedback grades \
        bench-batcher bench-padding bench-decode serve clean

help: ## list the targets
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-15s %s\n", $$1, $$2}'

lab: install ## set up (first time) and open JupyterLab on notebook 00, 127.0.0.1
	$(VENV)/bin/jupyter lab --ip 127.0.0.1 --port $(PORT) --ServerApp.root_dir=$(CURDIR) \
	  --LabApp.news_url=None $$( [ "$$(id -u)" = 0 ] && echo --allow-root ) \
	  notebooks/00_welcome/00_welcome.ipynb

test: install-test ## set up (first time) and run the whole test suite
	$(PY) -m pytest -q

test-fast: install-test ## the suite without the slow notebook, grading and browser tests
	$(PY) -m pytest -q -m "not slow"

install: $(STAMP) ## create .venv with the pinned stack and labsupport (editable)
$(STAMP): requirements.txt pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q -r requirements.txt -e .
	$(PY) -m labsupport.cli doctor --quiet || true
	touch $@

install-test: $(TEST_STAMP) ## add test tools and Debian's Chromium (for browser tests)
$(TEST_STAMP): $(STAMP) requirements-test.txt
	$(PY) -m pip install -q -r requirements-test.txt
	command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] && \
	  { apt-get install -y -q chromium fonts-dejavu-core >/dev/null 2>&1 || \
	    { apt-get update -q >/dev/null && apt-get install -y -q chromium fonts-dejavu-core >/dev/null; }; }; } || \
	  echo "chromium not installed (needs root): browser tests will be skipped"
	touch $@

doctor: install ## check versions, device, model files and data
	$(PY) -m labsupport.cli doctor

release: install ## trainers: regenerate notebooks/ from solutions/ with nbgrader
	$(PY) -m labsupport.cli grade release

collect: install ## trainers: import submissions (SRC=folder or LMS zip, ASSIGNMENT=… for a zip)
	$(PY) -m labsupport.cli grade collect $(SRC) $(if $(ASSIGNMENT),--assignment $(ASSIGNMENT))

autograde: install ## trainers: autograde autograde/submitted (ASSIGNMENT=…, JOBS=N optional)
	$(PY) -m labsupport.cli grade autograde $(ASSIGNMENT) --jobs $(or $(JOBS),1)

feedback: install ## trainers: feedback HTML for autograded work
	$(PY) -m labsupport.cli grade feedback $(ASSIGNMENT)

grades: install ## trainers: export grades to autograde/grades.csv
	$(PY) -m labsupport.cli grade export

bench-batcher: install ## JSON: policies at saturation / idle, runtime CPU cost, sim speed
	$(PY) -m labsupport.cli bench batcher

bench-padding: install ## JSON: FIFO vs bucketed padding share and MiniLM sentences/s
	$(PY) -m labsupport.cli bench padding

bench-decode: install ## JSON: continuous vs request-level decode vs transformers' own
	$(PY) -m labsupport.cli bench decode

serve: install ## run the embedding service on 127.0.0.1:8000
	$(PY) -m labsupport.cli serve

clean: ## remove the venv and generated grading folders
	rm -rf $(VENV) autograde/submitted autograde/autograded autograde/feedback autograde/gradebook.db
