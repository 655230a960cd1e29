# Bug: every arrival dispatches at once, even while the model is busy: no batching at all.
from labsupport.batching.lesson import LessonBatcher


class EagerBatcher(LessonBatcher):
    def _on_arrival(self):
        batch, self.queue = self.queue[:self.max_batch], self.queue[self.max_batch:]
        self._spawn(self._run(batch))
