# the instructors' BlockPool, every own attribute a slot of one list indexed by a named int constant (BS, FREE, REFS, TABLES, LENGTHS = range(5); self.s[REFS]): _key folds str constants only
# target: ex06_8
BS, FREE, REFS, TABLES, LENGTHS = range(5)


class BlockPool:
    """KV blocks shared by reference count; a shared block is never written (copy-on-write)."""
    def __init__(self, num_blocks, block_size):
        self.s = [block_size, list(range(num_blocks))[::-1], {}, {}, {}]

    def num_free(self):
        return len(self.s[FREE])

    def table(self, seq):
        return list(self.s[TABLES][seq])

    def _new_block(self):
        block = self.s[FREE].pop()
        self.s[REFS][block] = 1
        return block

    def _drop(self, block):
        self.s[REFS][block] -= 1
        if self.s[REFS][block] == 0:
            del self.s[REFS][block]
            self.s[FREE].append(block)

    def allocate(self, seq, n_tokens):
        need = -(-n_tokens // self.s[BS])
        if need > len(self.s[FREE]):
            return False
        self.s[TABLES][seq] = [self._new_block() for _ in range(need)]
        self.s[LENGTHS][seq] = n_tokens
        return True

    def append(self, seq):
        table, n = self.s[TABLES][seq], self.s[LENGTHS][seq]
        row = n % self.s[BS]
        if row == 0 or self.s[REFS][table[-1]] > 1:   # a new block, or a private copy
            if not self.s[FREE]:
                return None
            block = self._new_block()
            if row == 0:
                table.append(block)
            else:
                self._drop(table[-1])
                table[-1] = block
        self.s[LENGTHS][seq] = n + 1
        return table[-1] * self.s[BS] + row

    def fork(self, parent, child):
        self.s[TABLES][child] = list(self.s[TABLES][parent])
        self.s[LENGTHS][child] = self.s[LENGTHS][parent]
        for block in self.s[TABLES][child]:
            self.s[REFS][block] += 1

    def free(self, seq):
        for block in self.s[TABLES].pop(seq):
            self._drop(block)
        del self.s[LENGTHS][seq]