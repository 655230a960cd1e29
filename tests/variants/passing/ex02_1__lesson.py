# The lesson's design as a student might write it into ex02_1 (this lab's own code, same
# behaviour: window from the first arrival into an empty queue, full window always waited,
# model called on the event loop, zip to hand out results), plus the one guard ex02_1 asks
# for: a caller who gave up is skipped. It PASSES ex02_1 (it is a working windowed
# batcher); its other flaws cost the points of ex02_2 … ex02_6 instead.
import asyncio


class Batcher:
    def __init__(self, infer_fn, max_batch=32, max_delay_ms=10):
        self.model = infer_fn
        self.limit = max_batch
        self.wait_s = max_delay_ms / 1000
        self.pending = []

    async def submit(self, item):
        answer = asyncio.get_running_loop().create_future()
        self.pending.append((item, answer))
        if len(self.pending) == 1:
            asyncio.ensure_future(self._after_window())
        return await answer

    async def _after_window(self):
        await asyncio.sleep(self.wait_s)
        group = self.pending[:self.limit]
        del self.pending[:self.limit]
        if self.pending:
            asyncio.ensure_future(self._after_window())
        results = self.model([item for item, _ in group])
        for (_, answer), result in zip(group, results):
            if not answer.done():  # the caller may have given up (cancelled)
                answer.set_result(result)
