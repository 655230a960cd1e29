# Bug: full batches go at once, but nothing ever starts the window for a partial batch.
from labsupport.batching.lesson import LessonBatcher


class EarlyBatcher(LessonBatcher):
    def _on_arrival(self):
        if len(self.queue) >= self.max_batch:
            batch, self.queue = self.queue[:self.max_batch], self.queue[self.max_batch:]
            self._spawn(self._run(batch))
