# the instructors' BlockPool, every own attribute a key of one dict that is not an identifier (self.s['free blocks']): canonical._key wants str.isidentifier(), so the dict is no namespace: best_match 0.25 (holds), token order 0.834
# target: ex06_8
class BlockPool:
    """KV blocks shared by reference count; a shared block is never written (copy-on-write)."""
    def __init__(self, num_blocks, block_size):
        self.s = {}
        self.s['block size'] = block_size
        self.s['free blocks'] = list(range(num_blocks))[::-1]   # pop() takes the lowest
        self.s['refs'] = {}                                     # block -> sequences holding it
        self.s['tables'], self.s['lengths'] = {}, {}

    def num_free(self):
        return len(self.s['free blocks'])

    def table(self, seq):
        return list(self.s['tables'][seq])

    def _new_block(self):
        block = self.s['free blocks'].pop()
        self.s['refs'][block] = 1
        return block

    def _drop(self, block):
        self.s['refs'][block] -= 1
        if self.s['refs'][block] == 0:
            del self.s['refs'][block]
            self.s['free blocks'].append(block)

    def allocate(self, seq, n_tokens):
        need = -(-n_tokens // self.s['block size'])
        if need > len(self.s['free blocks']):
            return False
        self.s['tables'][seq] = [self._new_block() for _ in range(need)]
        self.s['lengths'][seq] = n_tokens
        return True

    def append(self, seq):
        table, n = self.s['tables'][seq], self.s['lengths'][seq]
        row = n % self.s['block size']
        if row == 0 or self.s['refs'][table[-1]] > 1:   # a new block, or a private copy
            if not self.s['free blocks']:
                return None
            block = self._new_block()
            if row == 0:
                table.append(block)
            else:
                self._drop(table[-1])
                table[-1] = block
        self.s['lengths'][seq] = n + 1
        return table[-1] * self.s['block size'] + row

    def fork(self, parent, child):
        self.s['tables'][child] = list(self.s['tables'][parent])
        self.s['lengths'][child] = self.s['lengths'][parent]
        for block in self.s['tables'][child]:
            self.s['refs'][block] += 1

    def free(self, seq):
        for block in self.s['tables'].pop(seq):
            self._drop(block)
        del self.s['lengths'][seq]
