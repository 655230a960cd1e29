# The lesson's rule: the synchronous model runs right on the event loop.
from labsupport.batching.lesson import LessonBatcher


class ThreadedBatcher(LessonBatcher):
    async def _call(self, items):
        return self.infer_fn(items)
