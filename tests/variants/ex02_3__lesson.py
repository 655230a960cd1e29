# The lesson's rule: every request waits for the window, even on an idle model.
from labsupport.batching.lesson import LessonBatcher


class EagerBatcher(LessonBatcher):
    def _on_arrival(self):
        if len(self.queue) == 1:
            self._start_timer()
