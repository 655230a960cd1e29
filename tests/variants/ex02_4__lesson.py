# The lesson's rule: the model's exception escapes the background task; callers wait forever.
from labsupport.batching.lesson import LessonBatcher


class SafeBatcher(LessonBatcher):
    async def _run(self, batch):
        outs = await self._call([item for item, _ in batch])
        self._deliver(batch, outs)
