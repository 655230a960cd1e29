"""One owner for the knobs: a Policy object given together with knobs is bound to them or
rejected, never silently ignored (issue 9's two measured bugs), and every engine shares the
policy's own BatchConfig."""
import asyncio

import pytest

from labsupport import BatchConfig, Bucketed, MicroBatcher, ServiceModel, make_policy, simulate
from labsupport.costs import fake_model
from labsupport.sim.vclock import run
from labsupport.traffic import Request

BACKLOG = [Request(k, 0.0, 10) for k in range(20)]


def test_simulate_rejects_a_policy_object_with_other_knobs():
    # once sent one batch of 20 here: max_batch=4 was silently ignored
    with pytest.raises(ValueError, match="max_batch=4 disagrees"):
        simulate(BACKLOG, Bucketed(), max_batch=4)


def test_simulate_accepts_knobs_that_agree_and_obeys_them():
    res = simulate(BACKLOG, Bucketed(max_batch=4), max_batch=4)
    assert res.batch_size.max() == 4 and res.batch_size.sum() == 20


def test_microbatcher_rejects_a_policy_object_with_other_knobs():
    with pytest.raises(ValueError, match="max_batch"):
        MicroBatcher(lambda xs: xs, max_batch=4, policy=Bucketed(max_batch=32))


def test_reconfigure_reaches_a_policy_object():
    # once: MicroBatcher(f, max_batch=4, policy=Bucketed(max_batch=32)) then
    # reconfigure(max_batch=2) still sent one batch of 10
    sizes = []

    async def main():
        model = fake_model(ServiceModel(1.0, 0.0), asynchronous=True)

        async def infer(items):
            sizes.append(len(items))
            return await model(items)

        mb = MicroBatcher(infer, policy=Bucketed(max_batch=32))
        assert mb.cfg is mb.policy.cfg  # one BatchConfig, shared
        mb.reconfigure(max_batch=2)
        async with mb:
            await asyncio.gather(*(mb.submit(k, length=5) for k in range(10)))
    run(main(), timeout=10)
    assert max(sizes) == 2 and sum(sizes) == 10


def test_config_object_and_keywords_combine():
    mb = MicroBatcher(lambda xs: xs, BatchConfig(max_batch=8, max_delay_ms=1.0),
                      max_delay_ms=3.0)
    assert (mb.cfg.max_batch, mb.cfg.max_delay_ms) == (8, 3.0)


def test_make_policy_binds_by_name_and_checks_objects():
    cfg = BatchConfig(max_batch=3, policy="early")
    assert make_policy(cfg=cfg).cfg is cfg and make_policy("early", cfg).cfg is cfg
    other = make_policy("window", cfg)  # a name given with a config overrides its policy
    assert other.name == other.cfg.policy == "window" and other.cfg.max_batch == 3
    assert cfg.policy == "early"  # the caller's config is not changed
    p = make_policy("window", max_batch=5)
    assert make_policy(p, max_batch=5) is p
    with pytest.raises(ValueError, match="max_delay_ms"):
        make_policy(p, max_delay_ms=1.0)


def test_the_config_names_its_policy_end_to_end():
    """``BatchConfig.policy`` picks the policy; a policy object's config names it; the
    runtime swaps the policy on ``reconfigure(policy=…)`` and keeps one shared config."""
    assert Bucketed(max_batch=4).cfg.policy == "bucketed"
    mb = MicroBatcher(lambda xs: xs, BatchConfig(policy="adaptive", slo_p99_ms=50.0))
    assert mb.policy.name == "adaptive" and mb.policy.cfg is mb.cfg
    assert mb.policy.cfg.slo_p99_ms == 50.0
    mb.reconfigure(policy="early", max_batch=4)
    assert mb.policy.name == "early" and mb.policy.cfg is mb.cfg and mb.cfg.max_batch == 4
    with pytest.raises(ValueError, match="policy must be one of"):
        mb.reconfigure(policy="fastest")
    assert mb.policy.name == "early"  # a refused change changed nothing
    res = simulate(BACKLOG, cfg=BatchConfig(policy="naive"))
    assert res.policy == "naive" and res.batch_size.max() == 1


def test_each_default_is_declared_once():
    """Every config that runs a batcher holds a ``BatchConfig`` instead of re-declaring its
    knobs, and background starts take one (or its knobs by name, checked by it)."""
    import inspect
    from dataclasses import fields

    from labsupport.batching.config import knob_names
    from labsupport.batching.runtime import MicroBatcher
    from labsupport.benches.peers.run import PeersConfig
    KNOBS = knob_names()
    from labsupport.serving.demo.rag import RagPipeline
    from labsupport.serving.ops import launcher
    for cls in (PeersConfig, RagPipeline):
        names = {f.name: f.type for f in fields(cls)}
        assert "BatchConfig" in names.values() and not set(names) & set(KNOBS), cls
    sig = inspect.signature(launcher.start_service).parameters
    assert "config" in sig and not set(sig) & set(KNOBS)
    sig = inspect.signature(MicroBatcher).parameters  # its knob keywords come from the list
    assert "config" in sig and set(sig) & set(KNOBS) == {"policy"}
    with pytest.raises(ValueError, match="max_batch"):
        launcher.start_service("fake", max_batch=0)  # checked before anything starts
