# Bug: the exception is swallowed and every caller gets None as if it were an answer.
from labsupport.batching.lesson import LessonBatcher


class SafeBatcher(LessonBatcher):
    async def _run(self, batch):
        try:
            outs = await self._call([item for item, _ in batch])
        except Exception:
            outs = [None] * len(batch)
        self._deliver(batch, outs)
