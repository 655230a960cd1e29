# Bug: each window serves the NEWEST max_batch requests (a stack, not a queue): under load
# the oldest requests starve.
import asyncio


class Batcher:
    def __init__(self, infer_fn, max_batch=32, max_delay_ms=10.0):
        self.infer_fn, self.max_batch = infer_fn, max_batch
        self.max_delay = max_delay_ms / 1000.0
        self.queue, self.tasks = [], set()

    async def submit(self, item):
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self.queue.append((item, fut))
        if len(self.queue) == 1:
            self._open(loop)
        return await fut

    def _open(self, loop):
        task = loop.create_task(self._window())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _window(self):
        await asyncio.sleep(self.max_delay)
        batch, self.queue = self.queue[-self.max_batch:], self.queue[:-self.max_batch]
        if self.queue:
            self._open(asyncio.get_running_loop())
        outs = self.infer_fn([item for item, _ in batch])
        for (_, fut), out in zip(batch, outs):
            if not fut.done():
                fut.set_result(out)
