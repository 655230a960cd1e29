# Dynamic Batching Lab. `make help` lists the targets; README gives the two you need.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8888
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
AIPERF_VENV := .venv-aiperf
AIPERF_STAMP := $(AIPERF_VENV)/.installed
LAB_SETTINGS := $(CURDIR)/.jupyter-lab-settings
export PATH := $(abspath $(VENV))/bin:$(PATH)
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export HF_HUB_DISABLE_PROGRESS_BARS := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: help lab install install-test test test-fast doctor release collect autograde feedback grades \
        student-pack demo-check bench-batcher bench-adaptive bench-padding bench-decode bench-service bench-gpu bench-peers aiperf peers serve-ray lab-settings serve clean \
        hub hub-install test-hub

help: ## list the targets
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-15s %s\n", $$1, $$2}'

lab: install lab-settings ## set up (first time) and open JupyterLab on notebook 00, 127.0.0.1
	JUPYTERLAB_SETTINGS_DIR=$(LAB_SETTINGS) $(VENV)/bin/jupyter lab --ip 127.0.0.1 \
	  --port $(PORT) --ServerApp.root_dir=$(CURDIR) --LabApp.news_url=None \
	  --LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate \
	  $$( [ "$$(id -u)" = 0 ] && echo --allow-root ) notebooks/00_welcome/00_welcome.ipynb

NOTIFY := $(LAB_SETTINGS)/@jupyterlab/apputils-extension/notification.jupyterlab-settings
lab-settings: ## JupyterLab settings for `make lab`: no "Jupyter news?" toast over the plots
	mkdir -p $(dir $(NOTIFY))
	test -f $(NOTIFY) || printf '{"fetchNews": "false", "checkForUpdates": false}\n' > $(NOTIFY)

test: install-test ## set up (first time) and run the whole test suite (two workers, then the browser)
	$(PY) -m pytest -q -n 2 --dist loadgroup --ignore=tests/browser
	$(PY) -m pytest -q tests/browser

test-fast: install-test ## the suite without the slow notebook, grading and browser tests
	$(PY) -m pytest -q -m "not slow"

install: $(STAMP) ## create .venv with the pinned stack, labsupport and the trainers' labgrader (editable)
$(STAMP): requirements.txt pyproject.toml labgrader/pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q -r requirements.txt -e . -e ./labgrader
	$(PY) -m labsupport.cli doctor --quiet || true
	touch $@

install-test: $(TEST_STAMP) ## add test tools and Debian's Chromium (for browser tests)
$(TEST_STAMP): $(STAMP) requirements-test.txt
	$(PY) -m pip install -q -r requirements-test.txt
	command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] && \
	  { apt-get install -y -q chromium fonts-dejavu-core >/dev/null 2>&1 || \
	    { apt-get update -q >/dev/null && apt-get install -y -q chromium fonts-dejavu-core >/dev/null; }; }; } || \
	  echo "chromium not installed (needs root): browser tests will be skipped"
	$(MAKE) --no-print-directory aiperf || echo "AIPerf not installed: its tests will be skipped"
	touch $@

aiperf: $(AIPERF_STAMP) ## AIPerf (NVIDIA's benchmark client) in its own venv .venv-aiperf (~2-5 min)
$(AIPERF_STAMP): requirements-aiperf.txt
	test -x $(AIPERF_VENV)/bin/python || python3 -m venv $(AIPERF_VENV)
	$(AIPERF_VENV)/bin/pip install -q -r requirements-aiperf.txt
	$(AIPERF_VENV)/bin/aiperf --version >/dev/null
	touch $@

# Peers for `labsupport bench peers`: each in its own venv under .peers/ (PyTriton pins
# numpy<2), from peers/<venv>/requirements.txt beside its server scripts; opt-in, never
# installed by `make test`. Installed one after another.
PEERS_DIR := .peers
PEER_RAY_STAMP := $(PEERS_DIR)/ray/.installed
PEER_PYTRITON_STAMP := $(PEERS_DIR)/pytriton/.installed

peers: $(PEER_RAY_STAMP) $(PEER_PYTRITON_STAMP) ## Ray Serve 2.60 and PyTriton 0.7.0, each in its own venv under .peers/ (~3-5 min)
$(PEER_RAY_STAMP): peers/ray/requirements.txt
	test -x $(PEERS_DIR)/ray/bin/python || python3 -m venv $(PEERS_DIR)/ray
	$(PEERS_DIR)/ray/bin/pip install -q -r peers/ray/requirements.txt
	$(PEERS_DIR)/ray/bin/python -c "import ray.serve"
	touch $@
$(PEER_PYTRITON_STAMP): peers/pytriton/requirements.txt | $(PEER_RAY_STAMP)
	test -x $(PEERS_DIR)/pytriton/bin/python || python3 -m venv $(PEERS_DIR)/pytriton
	$(PEERS_DIR)/pytriton/bin/pip install -q -r peers/pytriton/requirements.txt
	$(PEERS_DIR)/pytriton/bin/python -c "import pytriton.triton"
	touch $@

bench-peers: install peers ## JSON + PNG: Ray Serve, PyTriton and the lab's batcher, same toy model and load
	$(PY) -m labsupport.cli bench peers

serve-ray: $(PEER_RAY_STAMP) ## the lab's service on Ray Serve, 127.0.0.1:$(or $(PORT_RAY),8010) (REPLICAS=N or AUTOSCALE=MIN:MAX)
	PYTHONPATH=$(CURDIR) RAY_USAGE_STATS_ENABLED=0 $(PEERS_DIR)/ray/bin/python peers/ray/deploy.py \
	  --port $(or $(PORT_RAY),8010) $(if $(AUTOSCALE),--autoscale $(AUTOSCALE),--replicas $(or $(REPLICAS),2))

doctor: install ## check versions, device, model files and data
	$(PY) -m labsupport.cli doctor

release: install ## trainers: regenerate notebooks/ from solutions/ with nbgrader
	$(PY) -m labgrader release

collect: install ## trainers: import submissions (SRC=folder or LMS zip, ASSIGNMENT=… for a zip)
	$(PY) -m labgrader collect $(SRC) $(if $(ASSIGNMENT),--assignment $(ASSIGNMENT))

autograde: install ## trainers: autograde autograde/submitted (ASSIGNMENT=…, JOBS=N optional)
	$(PY) -m labgrader autograde $(ASSIGNMENT) --jobs $(or $(JOBS),1)

feedback: install ## trainers: feedback HTML for autograded work
	$(PY) -m labgrader feedback $(ASSIGNMENT)

grades: install ## trainers: export grades to autograde/grades.csv
	$(PY) -m labgrader export

student-pack: install ## trainers: build/dynamic-batching-lab-<version>.tar.gz for laptops and Colab (docs/trainers.md)
	$(PY) -m labgrader pack

demo-check: install ## trainers, before class: warm the model, measure capacity, run bench-peers if installed, print what notebook 07 will show
	$(PY) -m labsupport.cli demo-check

bench-batcher: install ## JSON: policies at saturation / idle, runtime CPU cost, sim speed
	$(PY) -m labsupport.cli bench batcher

bench-adaptive: install ## JSON: SLO-aware adaptive vs the best fixed knobs (simulator, bursty + Azure trace)
	$(PY) -m labsupport.cli bench adaptive

bench-padding: install ## JSON: FIFO vs bucketed padding share and MiniLM sentences/s
	$(PY) -m labsupport.cli bench padding

bench-decode: install ## JSON: continuous vs request-level decode vs transformers' own
	$(PY) -m labsupport.cli bench decode

bench-service: install aiperf ## JSON: AIPerf beside the lab's load generator, same load
	$(PY) -m labsupport.cli bench service

serve: install ## run the embedding service on 127.0.0.1:8000 (REPLICAS=N ROUTING=p2c: N behind a router)
	$(PY) -m labsupport.cli serve $(if $(REPLICAS),--replicas $(REPLICAS)) $(if $(ROUTING),--routing $(ROUTING))

bench-gpu: install ## JSON: encoder fp16 / static shapes and decoder on CUDA (skips without CUDA)
	$(PY) -m labsupport.cli bench gpu

# JupyterHub extra: its own venv, built on Debian's python so every Unix user can run it
# (a python under /root is unreadable to students), and the npm proxy in an ignored folder.
HUB_VENV ?= .venv-hub
HUB_PORT ?= 8010
HUB_PYTHON ?= $(firstword $(wildcard /usr/bin/python3) python3)
HUB_STAMP := $(HUB_VENV)/.installed

hub-install: $(HUB_STAMP) ## JupyterHub extra: .venv-hub (jupyterhub 6.1.1 + the lab) and configurable-http-proxy 5.3.0
$(HUB_STAMP): requirements.txt pyproject.toml labgrader/pyproject.toml
	test -x $(HUB_VENV)/bin/python || $(HUB_PYTHON) -m venv $(HUB_VENV)
	$(HUB_VENV)/bin/pip install -q -r requirements.txt -e . -e ./labgrader jupyterhub==6.1.1
	npm install --prefix .hub-node --no-audit --no-fund --silent configurable-http-proxy@5.3.0
	touch $@

hub: hub-install ## root: JupyterHub on 127.0.0.1:HUB_PORT, local users, the nbgrader exchange (docs/hub.md)
	@[ "$$(id -u)" = 0 ] || { echo "make hub: run as root (it creates Unix users; the spawner runs servers as them)"; exit 2; }
	$(HUB_VENV)/bin/python hub/course.py setup --protect-repo
	LABHUB_PORT=$(HUB_PORT) $(HUB_VENV)/bin/jupyterhub -f hub/jupyterhub_config.py

test-hub: install-test hub-install ## root: the hub walk-through (trainer + 3 students, release → fetch_feedback)
	$(PY) -m pytest -q tests/hub

clean: ## remove the venv and generated grading folders
	rm -rf $(VENV) $(AIPERF_VENV) $(PEERS_DIR) $(LAB_SETTINGS) autograde/submitted autograde/autograded autograde/feedback autograde/gradebook.db
