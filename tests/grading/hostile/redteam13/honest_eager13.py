# an honest EagerBatcher (a busy flag as a class attribute, a drain loop, the lesson's queue cut in two statements): best_match 0.93 'order' against the solution since attribute and method names count as the code's own (0.34 before 1340c8e)
# target: ex02_3
from labsupport.batching.lesson import LessonBatcher


class EagerBatcher(LessonBatcher):
    """The lesson's batcher, but an idle model never waits: a request arriving when nothing
    runs goes at once; requests arriving while a batch runs queue up and go together next."""
    busy = False

    def _on_arrival(self):
        if self.busy:
            return
        self.busy = True
        self._spawn(self._drain())

    async def _drain(self):
        try:
            while self.queue:
                batch = self.queue[:self.max_batch]
                self.queue = self.queue[self.max_batch:]
                await self._run(batch)
        finally:
            self.busy = False
