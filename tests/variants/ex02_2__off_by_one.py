# Bug: dispatches only when the queue holds MORE than max_batch.
from labsupport.batching.lesson import LessonBatcher


class EarlyBatcher(LessonBatcher):
    def _on_arrival(self):
        if len(self.queue) > self.max_batch:
            batch, self.queue = self.queue[:self.max_batch], self.queue[self.max_batch:]
            self._spawn(self._run(batch))
        elif len(self.queue) == 1:
            self._start_timer()
