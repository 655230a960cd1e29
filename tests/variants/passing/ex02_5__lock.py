# Another correct answer: asyncio's default pool, with a lock so one batch runs at a time.
import asyncio

from labsupport.batching.lesson import LessonBatcher


class ThreadedBatcher(LessonBatcher):
    async def _call(self, items):
        if not hasattr(self, "_model_lock"):
            self._model_lock = asyncio.Lock()
        async with self._model_lock:
            return await asyncio.to_thread(self.infer_fn, items)
