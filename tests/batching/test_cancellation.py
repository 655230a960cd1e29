"""A caller that gives up (cancelled future): the lesson's batcher shows flaw 6, the lab's
MicroBatcher and the ex02_9 model answer do not, on the virtual clock."""
import adapters
from labsupport.batching.lesson import LessonBatcher
from labsupport.batching.runtime import MicroBatcher
from labsupport.sim.scenarios import probe, virtual_model


def shout(items):
    return [s.upper() for s in items]


def _run(make, model=shout, cancel=(None, 5.0, None, None)):
    return probe(make, [0, 0, 0, 50], ["a", "b", "c", "d"], model=model, cancel_ms=list(cancel))


def test_lesson_batcher_hangs_the_callers_after_a_cancelled_one():
    res = _run(lambda f: LessonBatcher(f, max_batch=4, max_delay_ms=10))
    assert res.statuses == ["ok", "cancelled", "hung", "ok"]
    assert type(res.task_errors[0]).__name__ == "InvalidStateError"


def test_micro_batcher_drops_a_cancelled_caller_and_serves_the_rest():
    for policy in ["window", "early"]:  # work_conserving answers before b leaves
        res = _run(lambda f: MicroBatcher(f, max_batch=4, max_delay_ms=10, policy=policy))
        assert res.statuses == ["ok", "cancelled", "ok", "ok"], policy
        assert [o.value for o in res.outcomes if o.status == "ok"] == ["A", "C", "D"]
        assert all("b" not in c.items for c in res.calls), "the model worked for nobody"


def test_micro_batcher_survives_a_cancel_while_the_model_runs():
    res = _run(lambda f: MicroBatcher(f, max_batch=4, max_delay_ms=1, policy="window"),
               model=virtual_model(shout, 20.0), cancel=(None, 10.0, None, None))
    assert res.statuses == ["ok", "cancelled", "ok", "ok"] and not res.task_errors


def test_ex02_9_model_answer_survives_both_cancels():
    cls = adapters.target("ex02_9")
    for model, cancel in [(shout, (None, 5.0, None, None)),
                          (virtual_model(shout, 20.0), (None, 15.0, None, None))]:
        res = _run(lambda f: cls(f, max_batch=4, max_delay_ms=5), model, cancel)
        assert res.statuses == ["ok", "cancelled", "ok", "ok"]
