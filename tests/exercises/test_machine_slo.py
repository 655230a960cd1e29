"""``slo_pick.machine_slo``: SLOs from the machine's own sweep, which the lab's pick can keep."""
import math

import pytest

from labsupport.decoder.metrics import summarize_decode
from labsupport.decoder.stepsim import StepCost, simulate_steps
from labsupport.decoder.workload import at_rate, trace_requests
from labsupport.exercises.slo_pick import machine_slo, pick, row

ROWS = [row(1, 2.0, 900.0, 1.0, 300.0), row(8, 9.0, 150.0, 3.5, 1500.0),
        row(32, 4.0, 100.0, 9.0, 3000.0)]


def test_reference_row_times_headroom():
    slo = machine_slo(ROWS, ref_max_seqs=8, ttft_headroom=2.0, tpot_headroom=1.0)
    assert slo == {"slo_ttft_ms": 300.0, "slo_tpot_ms": 3.5}
    assert machine_slo(ROWS, ref_max_seqs=32) == {"slo_ttft_ms": 150.0, "slo_tpot_ms": 11.25}


@pytest.mark.parametrize("fixed_ms", [0.3, 1.0, 4.0])  # a fast, a middling and a slow machine
def test_the_pick_exists_on_any_machine(fixed_ms):
    cost = StepCost(fixed_ms=fixed_ms, per_seq_ms=0.08 * fixed_ms, per_token_ms=0.01,
                    per_kv_ms=0.0002)
    reqs = trace_requests(120, seed=8)
    cap = summarize_decode(simulate_steps(at_rate(reqs, math.inf), cost=cost, max_seqs=32,
                                          kv_budget_tokens=8192))["requests_per_s"]
    reqs = at_rate(reqs, 0.6 * cap)
    runs = {m: simulate_steps(reqs, cost=cost, max_seqs=m, kv_budget_tokens=8192)
            for m in (1, 4, 8, 16, 32)}
    slo = machine_slo([{"max_seqs": m, **summarize_decode(r)} for m, r in runs.items()])
    rows = [{"max_seqs": m, **summarize_decode(r, **slo)} for m, r in runs.items()]
    assert pick(rows, **slo) is not None


def test_missing_reference_row_names_it_and_the_rows():
    with pytest.raises(ValueError, match=r"ref_max_seqs=4 is not a row of the sweep \(rows: \[1, 8, 32\]\)"):
        machine_slo(ROWS, ref_max_seqs=4)


@pytest.mark.parametrize("name", ["ttft_headroom", "tpot_headroom"])
@pytest.mark.parametrize("bad", [0.9, 0.0, -1.0, math.inf, math.nan])
def test_headroom_below_one_names_the_parameter_and_the_range(name, bad):
    with pytest.raises(ValueError, match=rf"{name} must be a finite number >= 1"):
        machine_slo(ROWS, **{name: bad})
