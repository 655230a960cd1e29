# the instructors' BlockPool, every read of an own attribute written getattr(self, 'refs', None): a getattr with a default (three arguments) is not undone
# target: ex06_8
class BlockPool:
    """KV blocks shared by reference count; a shared block is never written (copy-on-write)."""
    def __init__(self, num_blocks, block_size):
        self.block_size = block_size
        self.free_blocks = list(range(num_blocks))[::-1]   # pop() takes the lowest
        self.refs = {}                                     # block -> sequences holding it
        self.tables, self.lengths = {}, {}

    def num_free(self):
        return len(getattr(self, 'free_blocks', None))

    def table(self, seq):
        return list(getattr(self, 'tables', None)[seq])

    def _new_block(self):
        block = getattr(self, 'free_blocks', None).pop()
        getattr(self, 'refs', None)[block] = 1
        return block

    def _drop(self, block):
        getattr(self, 'refs', None)[block] -= 1
        if getattr(self, 'refs', None)[block] == 0:
            del getattr(self, 'refs', None)[block]
            getattr(self, 'free_blocks', None).append(block)

    def allocate(self, seq, n_tokens):
        need = -(-n_tokens // getattr(self, 'block_size', None))
        if need > len(getattr(self, 'free_blocks', None)):
            return False
        getattr(self, 'tables', None)[seq] = [self._new_block() for _ in range(need)]
        getattr(self, 'lengths', None)[seq] = n_tokens
        return True

    def append(self, seq):
        table, n = getattr(self, 'tables', None)[seq], getattr(self, 'lengths', None)[seq]
        row = n % getattr(self, 'block_size', None)
        if row == 0 or getattr(self, 'refs', None)[table[-1]] > 1:   # a new block, or a private copy
            if not getattr(self, 'free_blocks', None):
                return None
            block = self._new_block()
            if row == 0:
                table.append(block)
            else:
                self._drop(table[-1])
                table[-1] = block
        getattr(self, 'lengths', None)[seq] = n + 1
        return table[-1] * getattr(self, 'block_size', None) + row

    def fork(self, parent, child):
        getattr(self, 'tables', None)[child] = list(getattr(self, 'tables', None)[parent])
        getattr(self, 'lengths', None)[child] = getattr(self, 'lengths', None)[parent]
        for block in getattr(self, 'tables', None)[child]:
            getattr(self, 'refs', None)[block] += 1

    def free(self, seq):
        for block in getattr(self, 'tables', None).pop(seq):
            self._drop(block)
        del getattr(self, 'lengths', None)[seq]