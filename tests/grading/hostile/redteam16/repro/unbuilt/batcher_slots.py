# the instructors' Batcher with every own attribute a slot of one list by a constant index (self.s[3] for self.queue): _Namespaces reads only string keys: best_match 0.42 (holds), token order 0.84
# target: ex02_1
import asyncio


class Batcher:
    """A windowed micro-batcher: ``await submit(item)`` returns ``infer_fn([...])``'s output
    for ``item``. Knobs: ``max_batch`` (items per model call), ``max_delay_ms`` (window)."""
    def __init__(self, infer_fn, max_batch=32, max_delay_ms=10.0):
        self.s = [None] * 5
        self.s[0] = infer_fn
        self.s[1] = max_batch
        self.s[2] = max_delay_ms / 1000.0  # asyncio.sleep takes seconds
        self.s[3] = []                         # (item, future), oldest first
        self.s[4] = set()                      # keep timer tasks alive

    async def submit(self, item):
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self.s[3].append((item, fut))
        if len(self.s[3]) == 1:                # first into an empty queue opens a window
            self._open_window(loop)
        return await fut

    def _open_window(self, loop):
        task = loop.create_task(self._window())
        self.s[4].add(task)
        task.add_done_callback(self.s[4].discard)

    async def _window(self):
        await asyncio.sleep(self.s[2])
        batch, self.s[3] = self.s[3][:self.s[1]], self.s[3][self.s[1]:]
        if self.s[3]:                          # leftovers open the next window
            self._open_window(asyncio.get_running_loop())
        outs = self.s[0]([item for item, _ in batch])
        for (_, fut), out in zip(batch, outs):
            if not fut.done():                  # its caller may have given up (cancelled)
                fut.set_result(out)
