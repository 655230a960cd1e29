"""The lesson's batcher shows each of its five flaws, deterministically (virtual clock); the
lab's MicroBatcher shows none of them in the same scenarios."""
import pytest

from labsupport import MicroBatcher
from labsupport.batching.lesson import LessonBatcher
from labsupport.sim.scenarios import probe, virtual_model


def double(items):
    return [2 * x for x in items]


def lesson(max_batch=4, max_delay_ms=20.0):
    return lambda f: LessonBatcher(f, max_batch=max_batch, max_delay_ms=max_delay_ms)


def fixed(max_batch=4, max_delay_ms=20.0):
    return lambda f: MicroBatcher(f, max_batch=max_batch, max_delay_ms=max_delay_ms,
                                  policy="work_conserving", isolate_errors=False)


def test_windowed_batching_works():
    res = probe(lesson(), [0.0] * 10, model=double)
    assert res.statuses == ["ok"] * 10
    assert [o.value for o in res.outcomes] == [2 * i for i in range(10)]
    assert res.batch_sizes == [4, 4, 2]
    assert list(res.latency_ms) == pytest.approx([20.0] * 4 + [40.0] * 4 + [60.0] * 2)


def test_flaw_full_batch_waits():
    assert list(probe(lesson(), [0.0] * 4, model=double).latency_ms) == pytest.approx([20.0] * 4)
    assert max(probe(fixed(), [0.0] * 4, model=double).latency_ms) < 0.5


def test_flaw_lone_request_waits_the_window():
    model = virtual_model(double, 5.0, 0.5)
    assert probe(lesson(), [0.0], model=model).latency_ms[0] == pytest.approx(25.5)
    assert probe(fixed(), [0.0], model=model).latency_ms[0] == pytest.approx(5.5)


def fussy(items):
    if "poison" in items:
        raise ValueError("poison")
    return [s.upper() for s in items]


def test_flaw_exception_hangs_callers():
    res = probe(lesson(), [0, 0, 0, 50], ["a", "poison", "b", "c"], model=fussy)
    assert res.statuses == ["hung", "hung", "hung", "ok"]
    res = probe(fixed(), [0, 0, 0, 50], ["a", "poison", "b", "c"], model=fussy)
    assert res.statuses == ["error", "error", "error", "ok"]


def test_flaw_model_runs_on_the_event_loop():
    assert all(c.on_loop_thread for c in probe(lesson(), [0.0] * 3, model=double).calls)
    assert not any(c.on_loop_thread for c in probe(fixed(), [0.0] * 3, model=double).calls)


def test_flaw_short_result_drops_and_misroutes():
    def lossy(items):
        return [s.upper() for s in items if s != " "]
    res = probe(lesson(), [0, 0, 0], ["a", " ", "b"], model=lossy)
    assert res.statuses == ["ok", "ok", "hung"]
    assert res.outcomes[1].value == "B"           # someone else's answer
    res = probe(fixed(), [0, 0, 0], ["a", " ", "b"], model=lossy)
    assert res.statuses == ["error"] * 3


def test_probe_rejects_mismatched_items():
    with pytest.raises(ValueError, match="same length"):
        probe(lesson(), [0.0, 1.0], ["a"], model=double)


def test_open_loop_answers_every_request_on_the_real_clock():
    import asyncio

    import numpy as np

    from labsupport import poisson
    from labsupport.sim.scenarios import open_loop

    async def main():
        async with MicroBatcher(double, max_batch=8, max_delay_ms=0.0) as mb:
            return await open_loop(mb.submit, poisson(2000.0, 40, seed=1), lambda r: r.id)
    arrival, finish = asyncio.run(main())
    assert len(arrival) == 40 and not np.isnan(finish).any()
    assert np.all(finish >= arrival) and np.all(np.diff(arrival) >= 0)
