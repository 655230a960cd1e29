# Bug: cancelled requests are dropped before the batch runs, but a caller who gives up
# WHILE the model runs still makes set_result raise, and the callers after it hang.
from labsupport.batching.lesson import LessonBatcher


class CancelSafeBatcher(LessonBatcher):
    async def _run(self, batch):
        batch = [(item, fut) for item, fut in batch if not fut.done()]
        if batch:
            await super()._run(batch)
