# Bug: only the first caller of the failed batch hears about the exception.
from labsupport.batching.lesson import LessonBatcher


class SafeBatcher(LessonBatcher):
    async def _run(self, batch):
        try:
            outs = await self._call([item for item, _ in batch])
        except Exception as exc:
            batch[0][1].set_exception(exc)
            return
        self._deliver(batch, outs)
