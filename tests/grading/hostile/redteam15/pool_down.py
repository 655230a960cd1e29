# redteam15's probe, built at stop 47: redteam14 pool_dict_call (the instructors' BlockPool, every own attribute self.s['<attr>']) with its namespace one object down, self.t = types.SimpleNamespace(); self.t.s = dict(), so every read is self.t.s['<attr>']: best_match 0.25, token order 0.42 before canonical._Holders (an object kept only to hold attributes is its owner's), 1.00 after
# target: ex06_8
import types

class BlockPool:
    """KV blocks shared by reference count; a shared block is never written (copy-on-write)."""
    def __init__(self, num_blocks, block_size):
        self.t = types.SimpleNamespace()
        self.t.s = dict()
        self.t.s['block_size'] = block_size
        self.t.s['free_blocks'] = list(range(num_blocks))[::-1]   # pop() takes the lowest
        self.t.s['refs'] = {}                                     # block -> sequences holding it
        self.t.s['tables'], self.t.s['lengths'] = {}, {}

    def num_free(self):
        return len(self.t.s['free_blocks'])

    def table(self, seq):
        return list(self.t.s['tables'][seq])

    def _new_block(self):
        block = self.t.s['free_blocks'].pop()
        self.t.s['refs'][block] = 1
        return block

    def _drop(self, block):
        self.t.s['refs'][block] -= 1
        if self.t.s['refs'][block] == 0:
            del self.t.s['refs'][block]
            self.t.s['free_blocks'].append(block)

    def allocate(self, seq, n_tokens):
        need = -(-n_tokens // self.t.s['block_size'])
        if need > len(self.t.s['free_blocks']):
            return False
        self.t.s['tables'][seq] = [self._new_block() for _ in range(need)]
        self.t.s['lengths'][seq] = n_tokens
        return True

    def append(self, seq):
        table, n = self.t.s['tables'][seq], self.t.s['lengths'][seq]
        row = n % self.t.s['block_size']
        if row == 0 or self.t.s['refs'][table[-1]] > 1:   # a new block, or a private copy
            if not self.t.s['free_blocks']:
                return None
            block = self._new_block()
            if row == 0:
                table.append(block)
            else:
                self._drop(table[-1])
                table[-1] = block
        self.t.s['lengths'][seq] = n + 1
        return table[-1] * self.t.s['block_size'] + row

    def fork(self, parent, child):
        self.t.s['tables'][child] = list(self.t.s['tables'][parent])
        self.t.s['lengths'][child] = self.t.s['lengths'][parent]
        for block in self.t.s['tables'][child]:
            self.t.s['refs'][block] += 1

    def free(self, seq):
        for block in self.t.s['tables'].pop(seq):
            self._drop(block)
        del self.t.s['lengths'][seq]