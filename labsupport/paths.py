"""Where the lab finds its files (its ``data/``: the repo's, or the student pack's; and, when
present, ``../shared/data/``) and what kind of run this is (``autograde_mode``)."""
from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]  # the repo; site-packages when installed from the wheel
PACK_MARKER = "labpack.json"  # the student pack's manifest, at its root (``labgrader pack``)


def data_dir() -> Path:
    """The lab's data: ``$LAB_DATA``; else the repo's ``data/``; else the ``data/`` of the
    student pack this runs in (the nearest folder holding ``labpack.json`` above the working
    directory, where a notebook's kernel starts, or above this package, in the pack's venv)."""
    env = os.environ.get("LAB_DATA")
    if env:
        return Path(env)
    if (REPO / "data").is_dir():
        return REPO / "data"
    here = Path(__file__).resolve()
    for folder in (Path.cwd(), *Path.cwd().parents, *here.parents):
        if (folder / PACK_MARKER).is_file():
            return folder / "data"
    return REPO / "data"  # missing: ``labsupport doctor`` says so


DATA = data_dir()
SHARED_DATA = Path(os.environ.get("LAB_SHARED_DATA", REPO.parent / "shared" / "data"))
AZURE_CONV = SHARED_DATA / "azure_llm_2023" / "AzureLLMInferenceTrace_conv.csv"
SYNTHETIC_TRACE = DATA / "synthetic_conv_trace.csv"
AZURE_URL = ("https://raw.githubusercontent.com/Azure/AzurePublicDataset/master/"
             "data/AzureLLMInferenceTrace_conv.csv")


def trace_path() -> Path:
    """The real Azure conversation trace when present, else the shipped synthetic one."""
    env = os.environ.get("LAB_TRACE")
    if env:
        return Path(env)
    return AZURE_CONV if AZURE_CONV.exists() else SYNTHETIC_TRACE


def autograde_mode() -> bool:
    """True in a grading kernel (``LAB_AUTOGRADE=1``, set by the lab's nbgrader config):
    demos and measurements run short and nothing waits on a frontend."""
    return os.environ.get("LAB_AUTOGRADE", "").strip() not in ("", "0")
