# as batcher_fstring_keys, keys as bytes (self.s[b'queue'])
# target: ex02_1
import asyncio


class Batcher:
    """A windowed micro-batcher: ``await submit(item)`` returns ``infer_fn([...])``'s output
    for ``item``. Knobs: ``max_batch`` (items per model call), ``max_delay_ms`` (window)."""
    def __init__(self, infer_fn, max_batch=32, max_delay_ms=10.0):
        self.s = {}
        self.s[b'infer_fn'] = infer_fn
        self.s[b'max_batch'] = max_batch
        self.s[b'max_delay'] = max_delay_ms / 1000.0  # asyncio.sleep takes seconds
        self.s[b'queue'] = []                         # (item, future), oldest first
        self.s[b'tasks'] = set()                      # keep timer tasks alive

    async def submit(self, item):
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self.s[b'queue'].append((item, fut))
        if len(self.s[b'queue']) == 1:                # first into an empty queue opens a window
            self._open_window(loop)
        return await fut

    def _open_window(self, loop):
        task = loop.create_task(self._window())
        self.s[b'tasks'].add(task)
        task.add_done_callback(self.s[b'tasks'].discard)

    async def _window(self):
        await asyncio.sleep(self.s[b'max_delay'])
        batch, self.s[b'queue'] = self.s[b'queue'][:self.s[b'max_batch']], self.s[b'queue'][self.s[b'max_batch']:]
        if self.s[b'queue']:                          # leftovers open the next window
            self._open_window(asyncio.get_running_loop())
        outs = self.s[b'infer_fn']([item for item, _ in batch])
        for (_, fut), out in zip(batch, outs):
            if not fut.done():                  # its caller may have given up (cancelled)
                fut.set_result(out)