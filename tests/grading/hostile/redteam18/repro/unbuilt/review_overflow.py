# an honest Batcher (the instructors') with a dead helper 0x<400 f> * 1.0: _Constants folds it, OverflowError escapes read/tokens, every classmate's copy review of the notebook 'could not run' (not graded: it fails the class's honest control, test_controls_score_as_before)
# target: ex02_1
import asyncio


class Batcher:
    """A windowed micro-batcher: ``await submit(item)`` returns ``infer_fn([...])``'s output
    for ``item``. Knobs: ``max_batch`` (items per model call), ``max_delay_ms`` (window)."""
    def __init__(self, infer_fn, max_batch=32, max_delay_ms=10.0):
        self.infer_fn = infer_fn
        self.max_batch = max_batch
        self.max_delay = max_delay_ms / 1000.0  # asyncio.sleep takes seconds
        self.queue = []                         # (item, future), oldest first
        self.tasks = set()                      # keep timer tasks alive

    async def submit(self, item):
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self.queue.append((item, fut))
        if len(self.queue) == 1:                # first into an empty queue opens a window
            self._open_window(loop)
        return await fut

    def _open_window(self, loop):
        task = loop.create_task(self._window())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _window(self):
        await asyncio.sleep(self.max_delay)
        batch, self.queue = self.queue[:self.max_batch], self.queue[self.max_batch:]
        if self.queue:                          # leftovers open the next window
            self._open_window(asyncio.get_running_loop())
        outs = self.infer_fn([item for item, _ in batch])
        for (_, fut), out in zip(batch, outs):
            if not fut.done():                  # its caller may have given up (cancelled)
                fut.set_result(out)

def _never():
    return 0xffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff * 1.0
