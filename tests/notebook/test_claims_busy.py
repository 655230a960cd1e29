"""Notebooks 01, 04, 05, 06 and 07 run headless while another process burns a CPU core, and
every conclusion they state agrees with what they measured on that run (the cells emit each
claim as machine-readable output, ``labsupport.notebook.claims.CLAIM_MIME``)."""
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from labsupport.notebook.claims import CLAIM_MIME
from labsupport.serving.demo.measure import MIN_GAIN

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow

# the predicate behind each claim, re-derived from its evidence
CHECK = {
    "real_latency_grows_with_load": lambda e: all(
        b > -0.1 * e["mean_ms_at_0.3"] + a for a, b in
        zip(list(e.values()), list(e.values())[1:])),
    "md1_matches_sim": lambda e: abs(e["formula_ms"] - e["simulated_ms"]) <= 0.15 * e["formula_ms"],
    "batching_cheaper": lambda e: e["gain_at_16_tokens"] > 1.2,
    "bucketed_drains_faster": lambda e: e["bucketed_req_per_s"] >= e["FIFO_req_per_s"],
    "window_waits_at_light_load": lambda e: e["p50_window_ms"] > e["p50_work_conserving_ms"],
    "bucketed_holds_slo_longer": lambda e: e["bucketed_req_per_s"] > e["naive_req_per_s"],
    "bucketing_beats_fifo": lambda e: e["bucketed_req_per_s"] >= e["fifo_req_per_s"],
    "real_knee_near_cap": lambda e: 0.5 * e["cap_ms"] <= e["knee_ms"] <= 1.5 * e["cap_ms"],
    "adaptive_busiest_step": lambda e: e["adaptive p99 ms"] <= e["fixed p99 ms"],
    "cache_same_tokens": lambda e: e["first difference"] is None,
    "no_cache_step_grows": lambda e: (e["growth without cache"] > 2.0
                                      and e["growth without cache"] > 2.0 * e["growth with cache"]),
    "long_context_stays_memory_bound": lambda e: all(
        v is None for k, v in e.items() if k.endswith("at 4096")),
    "gpu_on_demand_wins": lambda e: (e["tokens/s ratio"] >= 1.5
                                     and e["reserve running"] < e["on_demand running"]),
    "cpu_gain_smaller": lambda e: e["CPU ratio"] < e["GPU-shaped ratio"],
    "cpu_steps_stretch": lambda e: (e["CPU ms/step"] > e["GPU ms/step"] and
                                    e["CPU tokens/step"] / e["CPU ms/step"]
                                    < e["GPU tokens/step"] / e["GPU ms/step"]),
    "demo_load_between_capacities":
    lambda e: e["max_batch_16_rps"] >= MIN_GAIN * e["max_batch_1_rps"],
    "one_per_pass_falls_behind": lambda e: e["p50_1_ms"] > 2 * e["p50_16_ms"] and
    e["queue_1"] > e["queue_16"],
    "window_adds_its_wait": lambda e: e["window_p50_ms"] - e["work_conserving_p50_ms"] >=
    0.5 * e["window_ms"],
    "zero_window_goes_at_once": lambda e: abs(e["window_0_p50_ms"] - e["work_conserving_p50_ms"])
    < 0.5 * e["window_ms"],
    "overload_loses_nothing": lambda e: e["ok"] + e["rejected"] == e["sent"] and e["errors"] == 0,
    "overload_median_near_queue_bound": lambda e: 0.5 * e["max_queue_over_rate_ms"] <=
    e["p50_ms"] <= 2 * e["max_queue_over_rate_ms"],
    "rejections_take_cpu": lambda e: e["completed_rps_burst"] < e["completed_rps_idle"],
    "rejections_answer_fast": lambda e: e["reject_p50_ms"] < 0.1 * e["accepted_p50_ms"],
    "rag_prefix_cache_feeds_less": lambda e: e["prefill_fed_on"] < e["prefill_fed_off"] and
    e["identical"] == e["answers"],
    "rag_prefix_cache_lowers_ttft": lambda e: e["p50_on_ms"] < e["p50_off_ms"],
}
# conclusions robust measurement must keep even on a busy machine. Not among them:
# bucketing_beats_fifo, which depends on the fitted cost's shape (a dominant fixed cost per
# batch makes FIFO hold the SLO further: tests/sim/test_capacity.py), so the notebook checks
# it and explains the outcome either way; nor notebook 07's timing claims (the live service
# shares the cores with its load generator and the hog), only its counting ones.
MUST_HOLD = {"md1_matches_sim", "batching_cheaper", "window_waits_at_light_load",
             "cache_same_tokens", "long_context_stays_memory_bound", "gpu_on_demand_wins",
             "overload_loses_nothing", "rag_prefix_cache_feeds_less"}
EXPECTED = {"01_naive_queue": {"real_latency_grows_with_load", "md1_matches_sim"},
            "04_encoder_batcher": {"batching_cheaper", "bucketed_drains_faster",
                                   "window_waits_at_light_load", "bucketed_holds_slo_longer",
                                   "bucketing_beats_fifo", "real_knee_near_cap",
                                   "adaptive_busiest_step"},
            "05_decode_basics": {"cache_same_tokens", "no_cache_step_grows",
                                 "long_context_stays_memory_bound"},
            "06_continuous_decoder": {"gpu_on_demand_wins", "cpu_gain_smaller",
                                      "cpu_steps_stretch"},
            "07_live_demo": {"demo_load_between_capacities", "one_per_pass_falls_behind",
                             "window_adds_its_wait", "zero_window_goes_at_once",
                             "overload_loses_nothing", "overload_median_near_queue_bound",
                             "rejections_take_cpu", "rejections_answer_fast",
                             "rag_prefix_cache_feeds_less", "rag_prefix_cache_lowers_ttft"}}


@pytest.fixture(scope="module")
def busy_core():
    burner = subprocess.Popen([sys.executable, "-c",
                               "import time\nend = time.time() + 900\n"
                               "while time.time() < end: pass"])
    yield burner
    burner.terminate()
    burner.wait(10)


def _claims(nb) -> list[dict]:
    return [o["data"][CLAIM_MIME] for c in nb.cells if c.cell_type == "code"
            for o in c.get("outputs", []) if CLAIM_MIME in o.get("data", {})]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_stated_conclusions_hold_on_a_busy_machine(name, busy_core, tmp_path):
    nb = nbformat.read(ROOT / "solutions" / name / f"{name}.ipynb", as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    assert busy_core.poll() is None, "the core burner stopped early"
    claims = {c["name"]: c for c in _claims(nb)}
    assert set(claims) == EXPECTED[name]
    for c in claims.values():
        assert CHECK[c["name"]](c["evidence"]) == c["holds"], \
            f"{c['name']}: the notebook's verdict disagrees with its own numbers {c}"
        if c["name"] in MUST_HOLD:
            assert c["holds"], f"{c['name']} failed under load: {c['evidence']}"
    shown = [o["data"]["text/markdown"] for cell in nb.cells if cell.cell_type == "code"
             for o in cell.get("outputs", []) if CLAIM_MIME in o.get("data", {})]
    for text, c in zip(shown, claims.values()):
        assert text.startswith("**On this run:**") == c["holds"]
