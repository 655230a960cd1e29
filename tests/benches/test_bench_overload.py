"""``labsupport bench overload`` runs against a real service and prints its figures as JSON
(what they are is the bench's to report; here only that they are there and consistent)."""
import json

import pytest

from labsupport.benches import overload

pytestmark = pytest.mark.timeout(120)


def test_prints_the_429_decision_and_latency_figures(capsys):
    assert overload.main(["--n", "20"]) == 0
    r = json.loads(capsys.readouterr().out)
    o = r["overload_10x"]
    assert r["half_load"]["sent"] == r["half_load"]["ok"] == 20
    assert o["errors"] == 0 and o["ok"] + o["rejected"] == o["sent"] and o["rejected"] > 0
    assert o["server_reject_mean_ms"] >= 0 and o["meets_reject_goal"] == (
        o["server_reject_mean_ms"] < o["goal_reject_ms"] == overload.GOAL_REJECT_MS)
    assert o["queue_bound_ms"] == pytest.approx(1000 * overload.MAX_QUEUE / overload.CAPACITY_RPS, abs=0.1)


def test_bad_n_names_the_parameter():
    with pytest.raises(ValueError, match=r"n must be an integer >= 1"):
        overload.run(n=0)
