# Bug: raises inside the background task, so no caller ever hears about it.
from labsupport.batching.lesson import LessonBatcher


class CheckedBatcher(LessonBatcher):
    def _deliver(self, batch, outs):
        if len(outs) != len(batch):
            raise RuntimeError(f"{len(outs)} outputs for {len(batch)} inputs")
        for (_, fut), out in zip(batch, outs):
            fut.set_result(out)
