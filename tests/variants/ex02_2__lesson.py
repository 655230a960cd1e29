# The lesson's rule: only the first request into an empty queue starts a timer.
from labsupport.batching.lesson import LessonBatcher


class EarlyBatcher(LessonBatcher):
    def _on_arrival(self):
        if len(self.queue) == 1:
            self._start_timer()
