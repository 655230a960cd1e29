# an honest Batcher in the lesson's design (LessonBatcher's timer, ensure_future, an index loop to deliver): best_match 0.91 'order' against the solution since attribute names count as the code's own (0.22 before 1340c8e)
# target: ex02_1
import asyncio


class Batcher:
    """A windowed micro-batcher: ``await submit(item)`` returns ``infer_fn([...])``'s output
    for ``item``. Knobs: ``max_batch`` (items per model call), ``max_delay_ms`` (window)."""
    def __init__(self, infer_fn, max_batch=32, max_delay_ms=10.0):
        self.infer_fn = infer_fn
        self.max_batch = max_batch
        self.window = max_delay_ms / 1000.0
        self.waiting = []
        self.running = set()

    async def submit(self, item):
        future = asyncio.get_running_loop().create_future()
        self.waiting.append((item, future))
        if len(self.waiting) == 1:
            self.start()
        return await future

    def start(self):
        task = asyncio.ensure_future(self.flush_later())
        self.running.add(task)
        task.add_done_callback(self.running.discard)

    async def flush_later(self):
        await asyncio.sleep(self.window)
        batch, self.waiting = self.waiting[:self.max_batch], self.waiting[self.max_batch:]
        if len(self.waiting) > 0:
            self.start()
        outputs = self.infer_fn([it for it, _ in batch])
        for i in range(len(batch)):
            if not batch[i][1].done():
                batch[i][1].set_result(outputs[i])
