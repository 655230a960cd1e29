# Bug: infer_fn(items) is evaluated on the loop before to_thread ever sees it.
import asyncio

from labsupport.batching.lesson import LessonBatcher


class ThreadedBatcher(LessonBatcher):
    async def _call(self, items):
        outs = self.infer_fn(items)
        return await asyncio.to_thread(lambda: outs)
