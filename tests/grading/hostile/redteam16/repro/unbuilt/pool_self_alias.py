# the instructors' BlockPool with its attributes renamed (search and replace) and reached through self.t = self (self.t.rc): the holder is not a blank call, so _Holders keeps self.t; attribute names count: best_match 0.25 (holds), token order 0.862
# target: ex06_8
class BlockPool:
    """KV blocks shared by reference count; a shared block is never written (copy-on-write)."""
    def __init__(self, num_blocks, block_size):
        self.t = self
        self.t.bs = block_size
        self.t.avail = list(range(num_blocks))[::-1]   # pop() takes the lowest
        self.t.rc = {}                                     # block -> sequences holding it
        self.t.tab, self.t.lens = {}, {}

    def num_free(self):
        return len(self.t.avail)

    def table(self, seq):
        return list(self.t.tab[seq])

    def _new_block(self):
        block = self.t.avail.pop()
        self.t.rc[block] = 1
        return block

    def _drop(self, block):
        self.t.rc[block] -= 1
        if self.t.rc[block] == 0:
            del self.t.rc[block]
            self.t.avail.append(block)

    def allocate(self, seq, n_tokens):
        need = -(-n_tokens // self.t.bs)
        if need > len(self.t.avail):
            return False
        self.t.tab[seq] = [self._new_block() for _ in range(need)]
        self.t.lens[seq] = n_tokens
        return True

    def append(self, seq):
        table, n = self.t.tab[seq], self.t.lens[seq]
        row = n % self.t.bs
        if row == 0 or self.t.rc[table[-1]] > 1:   # a new block, or a private copy
            if not self.t.avail:
                return None
            block = self._new_block()
            if row == 0:
                table.append(block)
            else:
                self._drop(table[-1])
                table[-1] = block
        self.t.lens[seq] = n + 1
        return table[-1] * self.t.bs + row

    def fork(self, parent, child):
        self.t.tab[child] = list(self.t.tab[parent])
        self.t.lens[child] = self.t.lens[parent]
        for block in self.t.tab[child]:
            self.t.rc[block] += 1

    def free(self, seq):
        for block in self.t.tab.pop(seq):
            self._drop(block)
        del self.t.lens[seq]
