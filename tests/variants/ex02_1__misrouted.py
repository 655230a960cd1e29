# Bug: outputs handed to the wrong callers (the batch order is reversed).
import asyncio


class Batcher:
    def __init__(self, infer_fn, max_batch=32, max_delay_ms=10.0):
        self.infer_fn, self.max_batch = infer_fn, max_batch
        self.max_delay = max_delay_ms / 1000.0
        self.queue = []

    async def submit(self, item):
        fut = asyncio.get_running_loop().create_future()
        self.queue.append((item, fut))
        if len(self.queue) == 1:
            asyncio.ensure_future(self._window())
        return await fut

    async def _window(self):
        await asyncio.sleep(self.max_delay)
        batch, self.queue = self.queue[:self.max_batch], self.queue[self.max_batch:]
        if self.queue:
            asyncio.ensure_future(self._window())
        outs = self.infer_fn([item for item, _ in batch])
        for (_, fut), out in zip(batch, reversed(outs)):
            fut.set_result(out)
