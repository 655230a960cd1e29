# Bug: the error is caught, but delivery stops at the first cancelled caller: the callers
# after it in the batch still wait forever.
import asyncio

from labsupport.batching.lesson import LessonBatcher


class CancelSafeBatcher(LessonBatcher):
    def _deliver(self, batch, outs):
        for (_, fut), out in zip(batch, outs):
            try:
                fut.set_result(out)
            except asyncio.InvalidStateError:
                return
