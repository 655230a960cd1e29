"""Where the lab finds its files (the repo's ``data/`` and, when present, ``../shared/data/``)
and what kind of run this is (``autograde_mode``)."""
from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "data"
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
