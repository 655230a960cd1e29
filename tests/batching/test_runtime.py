"""MicroBatcher fault handling and timing, on the virtual clock (labsupport.sim.vclock)."""
import asyncio
import threading
import time

import numpy as np
import pytest

from labsupport import (BatchConfig, BatchSizeMismatch, BatcherClosed, MicroBatcher, QueueFull,
                        ServiceModel, simulate)
from labsupport.costs import fake_model
from labsupport.traffic import Request, bursty
from labsupport.sim.vclock import run


def sleepy(model=ServiceModel(5.0, 0.2), seen=None):
    """An async toy model that takes ``model.cost(n)`` virtual ms and doubles its inputs."""
    def double(items):
        if seen is not None:
            seen.append(list(items))
        return [2 * x for x in items]
    return fake_model(model, double, asynchronous=True)


def test_each_caller_gets_its_own_result():
    async def main():
        async with MicroBatcher(sleepy(), max_batch=8) as mb:
            return await asyncio.gather(*(mb.submit(i) for i in range(50)))
    assert run(main()) == [2 * i for i in range(50)]


@pytest.mark.parametrize("policy,expected_ms", [("work_conserving", 5.2), ("window", 25.2)])
def test_lone_request_latency(policy, expected_ms):
    async def main():
        loop = asyncio.get_running_loop()
        async with MicroBatcher(sleepy(), max_batch=32, max_delay_ms=20, policy=policy) as mb:
            t0 = loop.time()
            await mb.submit(1)
            return (loop.time() - t0) * 1000
    assert run(main()) == pytest.approx(expected_ms)


def test_exception_fails_only_the_poison_request_and_batcher_keeps_serving():
    async def infer(items):
        if 13 in items:
            raise ValueError("poison")
        return items

    async def main():
        async with MicroBatcher(infer, max_batch=8) as mb:
            first = await asyncio.gather(*(mb.submit(i) for i in range(20)),
                                         return_exceptions=True)
            after = await mb.submit(99)
            return first, after
    first, after = run(main(), timeout=10)
    assert isinstance(first[13], ValueError)
    assert [r for i, r in enumerate(first) if i != 13] == [i for i in range(20) if i != 13]
    assert after == 99


def test_exception_without_isolation_fails_the_whole_batch_only():
    async def infer(items):
        if 3 in items:
            raise ValueError("poison")
        return items

    async def main():
        async with MicroBatcher(infer, max_batch=4, isolate_errors=False,
                                policy="early", max_delay_ms=1) as mb:
            return await asyncio.gather(*(mb.submit(i) for i in range(8)),
                                        return_exceptions=True)
    out = run(main(), timeout=10)
    assert all(isinstance(r, ValueError) for r in out[:4]) and out[4:] == [4, 5, 6, 7]


def test_wrong_output_count_errors_every_caller_of_that_batch():
    async def short(items):
        return items[:-1]

    async def main():
        async with MicroBatcher(short, max_batch=4, policy="early", max_delay_ms=1) as mb:
            return await asyncio.gather(*(mb.submit(i) for i in range(4)),
                                        return_exceptions=True)
    out = run(main(), timeout=10)
    assert all(isinstance(r, BatchSizeMismatch) for r in out)
    assert "3 outputs for 4 inputs" in str(out[0])


def test_cancelled_caller_is_dropped_before_its_batch_runs():
    seen = []

    async def main():
        async with MicroBatcher(sleepy(seen=seen), max_batch=8, policy="window",
                                max_delay_ms=10) as mb:
            tasks = [asyncio.ensure_future(mb.submit(i)) for i in range(4)]
            await asyncio.sleep(0.001)
            tasks[1].cancel()
            done = await asyncio.gather(*tasks, return_exceptions=True)
            return done, mb.stats.cancelled
    done, cancelled = run(main(), timeout=10)
    assert isinstance(done[1], asyncio.CancelledError) and cancelled == 1
    assert seen == [[0, 2, 3]]


def test_full_queue_rejects_at_once():
    async def main():
        async with MicroBatcher(sleepy(), max_batch=2, max_queue=3) as mb:
            tasks = [asyncio.ensure_future(mb.submit(i)) for i in range(10)]
            out = await asyncio.gather(*tasks, return_exceptions=True)
            return out, mb.stats.rejected
    out, rejected = run(main(), timeout=10)
    rejections = [r for r in out if isinstance(r, QueueFull)]
    assert rejected == len(rejections) > 0
    assert "max_queue=3" in str(rejections[0])
    assert all(r == 2 * i for i, r in enumerate(out) if not isinstance(r, QueueFull))


@pytest.mark.parametrize("drain", [True, False])
def test_close_finishes_or_rejects_every_pending_request(drain):
    async def main():
        mb = MicroBatcher(sleepy(), max_batch=4, policy="window", max_delay_ms=50)
        tasks = [asyncio.ensure_future(mb.submit(i)) for i in range(10)]
        await asyncio.sleep(0.001)
        await mb.close(drain=drain)
        out = await asyncio.gather(*tasks, return_exceptions=True)
        with pytest.raises(BatcherClosed):
            await mb.submit(1)
        return out
    out = run(main(), timeout=10)
    if drain:
        assert out == [2 * i for i in range(10)]
    else:
        assert all(isinstance(r, BatcherClosed) for r in out)


def test_sync_model_runs_off_the_event_loop():
    """A blocking model in the worker thread: the loop keeps serving other coroutines."""
    started = threading.Event()

    def blocking(items):
        started.set()
        time.sleep(0.2)
        return items

    async def main():
        async with MicroBatcher(blocking, max_batch=4) as mb:
            job = asyncio.ensure_future(mb.submit(1))
            while not started.is_set():
                await asyncio.sleep(0.001)
            ticks = 0
            while not job.done():
                ticks += 1
                await asyncio.sleep(0.005)
            return ticks, job.result()
    ticks, result = asyncio.run(main())
    assert result == 1 and ticks >= 5  # the loop ran while the model computed


@pytest.mark.parametrize("bad,name", [({"max_batch": 0}, "max_batch"),
                                      ({"max_delay_ms": -5}, "max_delay_ms"),
                                      ({"policy": "fifo"}, "policy")])
def test_bad_knobs(bad, name):
    with pytest.raises(ValueError, match=name):
        MicroBatcher(lambda xs: xs, **bad)


def test_reconfigure_validates_and_applies():
    mb = MicroBatcher(lambda xs: xs, max_batch=4)
    with pytest.raises(ValueError, match="max_batch"):
        mb.reconfigure(max_batch=-1)
    assert mb.cfg.max_batch == 4
    mb.reconfigure(max_batch=16, max_delay_ms=2.5)
    assert (mb.cfg.max_batch, mb.cfg.max_delay_ms, mb.policy.cfg.max_batch) == (16, 2.5, 16)


SAME_BATCHES = [("naive", {}), ("window", {}), ("early", {}), ("work_conserving", {}),
                ("work_conserving", {"max_tokens": 40}), ("bucketed", {}),
                ("bucketed", {"max_tokens": 48, "edges": (4, 8, 16)}),
                ("adaptive", {"slo_p99_ms": 30.0}),
                ("adaptive", {"slo_p99_ms": 12.0, "max_tokens": 40})]


@pytest.mark.parametrize("policy,knobs", SAME_BATCHES)
@pytest.mark.parametrize("preseal", [True, False])
def test_runtime_and_simulator_form_the_same_batches(policy, knobs, preseal):
    """One policy, two engines: same arrivals and costs → same batch compositions."""
    model = ServiceModel(3.0, 0.5)
    lengths = np.random.default_rng(3).integers(1, 17, 40)
    reqs = [Request(r.id, r.arrival, int(n)) for r, n in zip(bursty(400, 40, seed=7), lengths)]
    sim = simulate(reqs, policy, model, max_batch=6, max_delay_ms=4, **knobs)
    sim_batches = [sorted(map(int, (sim.batch_of == b).nonzero()[0]))
                   for b in range(len(sim.batch_size))]
    seen = []

    async def main():
        loop = asyncio.get_running_loop()
        cfg = BatchConfig(max_batch=6, max_delay_ms=4, **knobs)
        async with MicroBatcher(sleepy(model, seen), cfg, policy=policy, preseal=preseal) as mb:
            async def client(r: Request):
                await asyncio.sleep(r.arrival / 1000 - loop.time())
                return await mb.submit(r.id, length=r.length)
            await asyncio.gather(*(client(r) for r in reqs))
    run(main(), timeout=60)
    assert [sorted(b) for b in seen] == sim_batches
