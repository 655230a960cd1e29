# Bug: no batching at all: every request calls the model on its own.
import asyncio


class Batcher:
    def __init__(self, infer_fn, max_batch=32, max_delay_ms=10.0):
        self.infer_fn, self.max_batch = infer_fn, max_batch
        self.max_delay = max_delay_ms / 1000.0

    async def submit(self, item):
        await asyncio.sleep(self.max_delay)
        return self.infer_fn([item])[0]
