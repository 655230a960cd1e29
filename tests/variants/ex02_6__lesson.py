# The lesson's rule: zip silently stops at the shorter list.
from labsupport.batching.lesson import LessonBatcher


class CheckedBatcher(LessonBatcher):
    def _deliver(self, batch, outs):
        for (_, fut), out in zip(batch, outs):
            fut.set_result(out)
