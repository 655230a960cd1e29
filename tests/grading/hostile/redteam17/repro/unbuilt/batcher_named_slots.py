# as pool_named_slots, on the batcher (self.s[QUEUE])
# target: ex02_1
import asyncio

INFER_FN, MAX_BATCH, MAX_DELAY, QUEUE, TASKS = range(5)


class Batcher:
    """A windowed micro-batcher: ``await submit(item)`` returns ``infer_fn([...])``'s output
    for ``item``. Knobs: ``max_batch`` (items per model call), ``max_delay_ms`` (window)."""
    def __init__(self, infer_fn, max_batch=32, max_delay_ms=10.0):
        self.s = [None] * 5
        self.s[INFER_FN] = infer_fn
        self.s[MAX_BATCH] = max_batch
        self.s[MAX_DELAY] = max_delay_ms / 1000.0  # asyncio.sleep takes seconds
        self.s[QUEUE] = []                         # (item, future), oldest first
        self.s[TASKS] = set()                      # keep timer tasks alive

    async def submit(self, item):
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self.s[QUEUE].append((item, fut))
        if len(self.s[QUEUE]) == 1:                # first into an empty queue opens a window
            self._open_window(loop)
        return await fut

    def _open_window(self, loop):
        task = loop.create_task(self._window())
        self.s[TASKS].add(task)
        task.add_done_callback(self.s[TASKS].discard)

    async def _window(self):
        await asyncio.sleep(self.s[MAX_DELAY])
        batch, self.s[QUEUE] = self.s[QUEUE][:self.s[MAX_BATCH]], self.s[QUEUE][self.s[MAX_BATCH]:]
        if self.s[QUEUE]:                          # leftovers open the next window
            self._open_window(asyncio.get_running_loop())
        outs = self.s[INFER_FN]([item for item, _ in batch])
        for (_, fut), out in zip(batch, outs):
            if not fut.done():                  # its caller may have given up (cancelled)
                fut.set_result(out)