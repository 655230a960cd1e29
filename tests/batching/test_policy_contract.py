"""One rule for both engines (``batching.policies.ask``): a policy that dispatches while the
executor is busy, or asks to wait until a time that is not ahead, is refused the same way by
the simulator and by the runtime (a RuntimeError naming the policy; the runtime's callers
get it too, none hangs)."""
import asyncio

import pytest

from labsupport.batching.policies import WAIT, Dispatch, Policy, Wait, ask
from labsupport.batching.runtime import MicroBatcher
from labsupport.costs import ServiceModel, fake_model
from labsupport.sim.simulator import simulate
from labsupport.sim.vclock import run
from labsupport.traffic import Request


class Eager(Policy):
    """Dispatches whatever the executor is doing."""
    name = "eager"

    def decide(self, queue, now, busy):
        return Dispatch((0,))


class Stale(Policy):
    """Waits until the oldest arrival: a time already past once it has arrived."""
    name = "stale"

    def decide(self, queue, now, busy):
        return WAIT if busy else Wait(queue[0].arrival)


BAD = [(Eager, "dispatched while the executor was busy"), (Stale, "not ahead")]


@pytest.mark.parametrize("cls,words", BAD)
def test_ask_refuses_the_breach(cls, words):
    queue = [Request(0, 0.0, 1)]
    with pytest.raises(RuntimeError, match=words):
        ask(cls(), queue, 5.0, busy=cls is Eager)


@pytest.mark.parametrize("cls,words", BAD)
def test_the_simulator_refuses_it(cls, words):
    reqs = [Request(k, 0.0 if cls is Eager else 1.0, 1) for k in range(3)]
    with pytest.raises(RuntimeError, match=words):
        simulate(reqs, cls(), ServiceModel(5.0, 0.0))


@pytest.mark.parametrize("cls,words", BAD)
def test_the_runtime_refuses_it_and_fails_every_caller(cls, words):
    async def main():
        model = fake_model(ServiceModel(5.0, 0.0), asynchronous=True)
        async with MicroBatcher(model, policy=cls(max_batch=4)) as mb:
            return await asyncio.gather(*(mb.submit(k) for k in range(3)),
                                        return_exceptions=True)
    with pytest.raises(RuntimeError, match=words):  # the batcher's task ends with it
        run(main(), timeout=5)


def test_a_fine_policy_is_asked_while_busy_by_both_engines():
    """Both engines ask while a batch runs (busy=True), so a timer or a seal can be set."""
    seen = {"sim": [], "runtime": []}

    class Recording(Policy):
        name = "recording"
        where = "sim"

        def decide(self, queue, now, busy):
            seen[self.where].append(busy)
            return WAIT if busy else self.head(queue)

    reqs = [Request(k, float(k), 1) for k in range(4)]
    simulate(reqs, Recording(max_batch=1), ServiceModel(3.0, 0.0))

    async def main():
        p = Recording(max_batch=1)
        p.where = "runtime"
        loop = asyncio.get_running_loop()
        async with MicroBatcher(fake_model(ServiceModel(3.0, 0.0), asynchronous=True),
                                policy=p) as mb:
            async def client(r):
                await asyncio.sleep(r.arrival / 1000 - loop.time())
                return await mb.submit(r.id)
            await asyncio.gather(*(client(r) for r in reqs))
    run(main(), timeout=5)
    for engine in seen:
        assert True in seen[engine] and False in seen[engine], (engine, seen[engine])
