# Bug: callers that got "an" output keep it, although nobody knows which output is whose.
from labsupport.batching.lesson import LessonBatcher


class CheckedBatcher(LessonBatcher):
    def _deliver(self, batch, outs):
        for i, (_, fut) in enumerate(batch):
            if i < len(outs):
                fut.set_result(outs[i])
            else:
                fut.set_exception(RuntimeError("no output for this request"))
