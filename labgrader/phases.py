"""Where one grading job's time goes: start-up, import, cells, judge (seconds, per process).

``execute.AutogradeExecute`` adds ``startup`` (the box opened and its kernel ready),
``import`` (the notebook's first code cell: its imports) and ``cells`` (every other cell);
``pipeline.TrustedChecks`` adds ``judge`` (the trusted pass, its box included: it runs
beside the kernel, ``pipeline.Judging``) and ``waited`` (what of it the job still waited for
once the kernel had ended). ``SERIAL``: the phases that follow one another in a job. A
``parallel`` job writes its totals next to its private course (``dump``) and the parent reads
them into its report (``load``); ``labgrader bench grading`` prints them per notebook.
"""
from __future__ import annotations

import json
from pathlib import Path

NAMES = ("startup", "import", "cells", "judge", "waited")
SERIAL = ("startup", "import", "cells", "waited")  # the judge overlaps them
_spent: dict[str, float] = {}


def add(name: str, seconds: float) -> None:
    """Count ``seconds`` of wall time to phase ``name`` (one of ``NAMES``)."""
    if name not in NAMES:
        raise ValueError(f"phase must be one of {NAMES} (got {name!r})")
    _spent[name] = _spent.get(name, 0.0) + seconds


def spent() -> dict[str, float]:
    """This process's seconds per phase so far (rounded to 10 ms)."""
    return {k: round(_spent.get(k, 0.0), 2) for k in NAMES}


def dump(path: Path | str) -> None:
    Path(path).write_text(json.dumps(spent()))


def load(path: Path | str) -> dict[str, float]:
    """A job's phases (``{}`` when it wrote none: it died first)."""
    try:
        got = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return {}
    return {k: float(got[k]) for k in NAMES if isinstance(got.get(k), (int, float))}
