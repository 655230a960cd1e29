# Bug: the busy flag is never cleared, so after the first burst nothing is served again.
from labsupport.batching.lesson import LessonBatcher


class EagerBatcher(LessonBatcher):
    running = False

    def _on_arrival(self):
        if not self.running:
            self.running = True
            self._spawn(self._serve())

    async def _serve(self):
        while self.queue:
            batch, self.queue = self.queue[:self.max_batch], self.queue[self.max_batch:]
            await self._run(batch)
