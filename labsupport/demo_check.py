"""``labsupport demo-check`` (``make demo-check``): notebook 07's live demo, ready before
class. Starts the MiniLM service (loading and warming the model), measures this machine's
capacity the way notebook 07 does (``serving.demo.measure``), runs ``labsupport bench
peers`` when the peers are installed (``make peers``; notebook 07 §7 shows its result), and
prints what each section of the demo will show here, and anything a trainer should fix
first. Exit status 1 when something the demo needs is missing.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import time
from importlib.util import find_spec


def check(*, peers: bool = True, model: str = "minilm") -> dict:
    """Measure and look around; ``problems`` block the demo, ``notes`` do not. ``model``:
    the service's model (notebook 07 runs MiniLM; "fake" is the toy model)."""
    from .benches.peers import OUT as PEERS_OUT, main as bench_peers
    from .benches.peers.venvs import missing
    from .benches.service import aiperf_bin
    from .serving.demo.measure import MIN_GAIN, measure_capacity, ratio_text
    from .serving.ops.launcher import start_service

    out: dict = {"loadavg": [round(x, 2) for x in os.getloadavg()], "problems": [],
                 "notes": []}
    if find_spec("openai") is None:
        out["problems"].append("the `openai` package is missing (§3 uses it): `make install`")
    t0 = time.monotonic()
    svc = start_service(model, max_batch=16, max_delay_ms=5.0, max_queue=128)
    try:
        out["service_ready_s"] = round(time.monotonic() - t0, 1)
        cap = measure_capacity(svc)
    finally:
        svc.stop()
    out["capacity"], out["plan"] = cap.json(), cap.plan()
    if cap.gain < MIN_GAIN:
        out["notes"].append(f"batching gains only {ratio_text(cap.gain)} now (load average "
                            f"{out['loadavg'][0]}): close other programs, then run this again")
    absent = missing()
    if len(absent) == 2:
        out["peers"] = "not installed: `make peers` (a few minutes), then `make demo-check`"
    elif not peers:
        out["peers"] = "skipped (--skip-peers)"
    else:
        names = sorted({"ray_serve", "pytriton", "lab_inprocess", "lab_http"} - set(absent))
        t0 = time.monotonic()
        with contextlib.redirect_stdout(io.StringIO()):  # its JSON goes to peers.json
            bench_peers(["--peers", ",".join(names)])
        out["peers"] = (f"measured {', '.join(names)} in {time.monotonic() - t0:.0f} s: "
                        f"{PEERS_OUT / 'peers.json'} (§7 shows it)")
    if (PEERS_OUT / "peers.json").exists() and len(absent) == 2:
        out["peers"] += f"; §7 will show an earlier run ({PEERS_OUT / 'peers.json'})"
    out["aiperf"] = (str(aiperf_bin()) if aiperf_bin() else
                     "not installed (`make aiperf`): §3 prints its command anyway")
    return out


def describe(rep: dict) -> str:
    """The report as the lines a trainer reads."""
    lines = [f"notebook 07 on this machine (load average {rep['loadavg'][0]}): the service "
             f"was ready in {rep['service_ready_s']} s"]
    lines += [f"  {line}" for line in rep["plan"]]
    lines += [f"  §7 peers: {rep['peers']}", f"  AIPerf: {rep['aiperf']}"]
    lines += [f"NOTE: {n}" for n in rep["notes"]]
    lines += [f"PROBLEM: {p}" for p in rep["problems"]]
    if not rep["problems"]:
        lines.append("ready: open notebooks/07_live_demo and Run All")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="labsupport demo-check", description=__doc__)
    ap.add_argument("--skip-peers", action="store_true",
                    help="do not run `bench peers` even when the peers are installed")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    args = ap.parse_args(argv)
    rep = check(peers=not args.skip_peers)
    print(json.dumps(rep, indent=1) if args.json else describe(rep))
    return 1 if rep["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
