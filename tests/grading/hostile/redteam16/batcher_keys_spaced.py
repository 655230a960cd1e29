# the instructors' Batcher, every own attribute a key of one dict that is not an identifier (self.s['max batch']): canonical._key wants str.isidentifier(): best_match 0.42 (holds), token order 0.844
# target: ex02_1
import asyncio


class Batcher:
    """A windowed micro-batcher: ``await submit(item)`` returns ``infer_fn([...])``'s output
    for ``item``. Knobs: ``max_batch`` (items per model call), ``max_delay_ms`` (window)."""
    def __init__(self, infer_fn, max_batch=32, max_delay_ms=10.0):
        self.s = {}
        self.s['infer fn'] = infer_fn
        self.s['max batch'] = max_batch
        self.s['max delay'] = max_delay_ms / 1000.0  # asyncio.sleep takes seconds
        self.s['queue'] = []                         # (item, future), oldest first
        self.s['tasks'] = set()                      # keep timer tasks alive

    async def submit(self, item):
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self.s['queue'].append((item, fut))
        if len(self.s['queue']) == 1:                # first into an empty queue opens a window
            self._open_window(loop)
        return await fut

    def _open_window(self, loop):
        task = loop.create_task(self._window())
        self.s['tasks'].add(task)
        task.add_done_callback(self.s['tasks'].discard)

    async def _window(self):
        await asyncio.sleep(self.s['max delay'])
        batch, self.s['queue'] = self.s['queue'][:self.s['max batch']], self.s['queue'][self.s['max batch']:]
        if self.s['queue']:                          # leftovers open the next window
            self._open_window(asyncio.get_running_loop())
        outs = self.s['infer fn']([item for item, _ in batch])
        for (_, fut), out in zip(batch, outs):
            if not fut.done():                  # its caller may have given up (cancelled)
                fut.set_result(out)
