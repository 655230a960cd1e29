# the instructors' BlockPool with its state on a holder reached through a getter method (self._st().refs): the path self.t is read whole (a return), so _Holders drops it: best_match 0.25 (holds), token order 0.739
# target: ex06_8
class _State:
    pass


class BlockPool:
    """KV blocks shared by reference count; a shared block is never written (copy-on-write)."""
    def __init__(self, num_blocks, block_size):
        self.t = _State()
        self._st().block_size = block_size
        self._st().free_blocks = list(range(num_blocks))[::-1]   # pop() takes the lowest
        self._st().refs = {}                                     # block -> sequences holding it
        self._st().tables, self._st().lengths = {}, {}

    def _st(self):
        return self.t

    def num_free(self):
        return len(self._st().free_blocks)

    def table(self, seq):
        return list(self._st().tables[seq])

    def _new_block(self):
        block = self._st().free_blocks.pop()
        self._st().refs[block] = 1
        return block

    def _drop(self, block):
        self._st().refs[block] -= 1
        if self._st().refs[block] == 0:
            del self._st().refs[block]
            self._st().free_blocks.append(block)

    def allocate(self, seq, n_tokens):
        need = -(-n_tokens // self._st().block_size)
        if need > len(self._st().free_blocks):
            return False
        self._st().tables[seq] = [self._new_block() for _ in range(need)]
        self._st().lengths[seq] = n_tokens
        return True

    def append(self, seq):
        table, n = self._st().tables[seq], self._st().lengths[seq]
        row = n % self._st().block_size
        if row == 0 or self._st().refs[table[-1]] > 1:   # a new block, or a private copy
            if not self._st().free_blocks:
                return None
            block = self._new_block()
            if row == 0:
                table.append(block)
            else:
                self._drop(table[-1])
                table[-1] = block
        self._st().lengths[seq] = n + 1
        return table[-1] * self._st().block_size + row

    def fork(self, parent, child):
        self._st().tables[child] = list(self._st().tables[parent])
        self._st().lengths[child] = self._st().lengths[parent]
        for block in self._st().tables[child]:
            self._st().refs[block] += 1

    def free(self, seq):
        for block in self._st().tables.pop(seq):
            self._drop(block)
        del self._st().lengths[seq]
