# Bug: off the loop, but in asyncio's default pool: while one batch computes, the timer
# fires and the next batch starts in a second thread, on the same model at the same time.
import asyncio

from labsupport.batching.lesson import LessonBatcher


class ThreadedBatcher(LessonBatcher):
    async def _call(self, items):
        return await asyncio.to_thread(self.infer_fn, items)
