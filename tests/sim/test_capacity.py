"""``sim.capacity.highest_rate``: the load a configuration holds within a p99 SLO (issue 24).

Notebook 04 read "bucketed: 0.0 req/s within the SLO" on a busy machine: its grid of rates
started at a tenth of capacity, and a cost fit dominated by the fixed cost made the bucketed
batcher miss the SLO there. A working batcher always holds *some* load when a lone request
meets the SLO; only the measurement could read 0.
"""
import numpy as np
import pytest

from labsupport import Bucketed, ServiceModel, bursty
from labsupport.encoder.corpus import texts_and_lengths
from labsupport.sim.capacity import highest_rate, p99_at

LENGTHS = texts_and_lengths()[1]  # notebook 04's corpus (600 texts, 4-256 tokens)
# the failing run's shape: a fixed cost that dwarfs the per-token cost, and the SLO
# notebook 04 derives from it (twice a lone long request, rounded up to 10 ms)
FIXED_HEAVY = ServiceModel(fixed_ms=150.0, per_item_ms=0.0, per_token_ms=0.33)
SHIPPED_CPU = ServiceModel(fixed_ms=7.0, per_item_ms=0.2, per_token_ms=0.16)
POLICIES = ["naive", "work_conserving", "early", "bucketed"]


def traffic(rate):
    return bursty(rate, 600, burstiness=1.0, seed=5, lengths=LENGTHS)


def slo_for(service):
    lone = service.cost(1, int(np.percentile(LENGTHS, 99)))
    return max(50.0, float(10 * np.ceil(2 * lone / 10)))


def old_grid(policy, service, slo, cap):
    """Notebook 04's measurement before issue 24: the highest of seven grid rates that held."""
    rates = np.array([0.1, 0.25, 0.5, 0.7, 0.85, 1.0, 1.15]) * cap
    return max([r for r in rates if p99_at(traffic, policy, service, r, max_batch=32) <= slo],
               default=0.0)


def test_the_old_grid_read_zero_for_a_working_bucketed_batcher():
    slo = slo_for(FIXED_HEAVY)
    assert old_grid(Bucketed(max_batch=32), FIXED_HEAVY, slo, cap=26.0) == 0.0
    assert highest_rate(traffic, Bucketed(max_batch=32), FIXED_HEAVY, slo, rate_hi=40.0,
                        max_batch=32) > 0.0


@pytest.mark.parametrize("service", [FIXED_HEAVY, SHIPPED_CPU], ids=["fixed-heavy", "shipped"])
@pytest.mark.parametrize("policy", POLICIES)
def test_every_working_policy_holds_some_load(policy, service):
    slo = slo_for(service)
    rate = highest_rate(traffic, policy, service, slo, rate_hi=200.0, max_batch=32)
    assert rate > 0.0, f"{policy} reads 0 req/s under an SLO a lone request meets"
    assert p99_at(traffic, policy, service, rate, max_batch=32) <= slo
    assert p99_at(traffic, policy, service, min(200.0, rate * 1.1), max_batch=32) > slo or rate == 200.0


def test_who_holds_further_depends_on_the_cost_shape():
    """What notebook 04 states is checked per machine, not asserted: with the shipped CPU
    costs bucketing holds further than FIFO; with a dominant fixed cost FIFO does."""
    def ratio(service):
        slo = slo_for(service)
        b, f = (highest_rate(traffic, p, service, slo, rate_hi=200.0, max_batch=32)
                for p in (Bucketed(max_batch=32), "work_conserving"))
        return b / f
    assert ratio(SHIPPED_CPU) > 1.2
    assert ratio(FIXED_HEAVY) < 1.0


def test_zero_only_when_a_lone_request_misses_the_slo():
    lone = SHIPPED_CPU.cost(1, int(LENGTHS.max()))
    assert highest_rate(traffic, "work_conserving", SHIPPED_CPU, lone / 2, rate_hi=50.0,
                        max_batch=32) == 0.0


def test_a_rate_that_always_holds_is_returned_whole():
    assert highest_rate(traffic, "work_conserving", SHIPPED_CPU, 1e9, rate_hi=50.0,
                        max_batch=32) == 50.0


@pytest.mark.parametrize("kw, name", [({"slo_p99_ms": 0.0}, "slo_p99_ms"),
                                      ({"rate_hi": -1.0}, "rate_hi"), ({"steps": 0}, "steps")])
def test_bad_input_names_the_parameter(kw, name):
    args = {"slo_p99_ms": 100.0, "rate_hi": 10.0, **kw}
    with pytest.raises(ValueError, match=name):
        highest_rate(traffic, "work_conserving", SHIPPED_CPU, args.pop("slo_p99_ms"), **args)
