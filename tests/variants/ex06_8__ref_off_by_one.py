class BlockPool:
    """Bug: a block goes back to the pool when its count reaches 1, while one sequence still holds it."""
    def __init__(self, num_blocks, block_size):
        self.block_size = block_size
        self.free_blocks = list(range(num_blocks))[::-1]   # pop() takes the lowest
        self.refs = {}                                     # block -> sequences holding it
        self.tables, self.lengths = {}, {}

    def num_free(self):
        return len(self.free_blocks)

    def table(self, seq):
        return list(self.tables[seq])

    def _new_block(self):
        block = self.free_blocks.pop()
        self.refs[block] = 1
        return block

    def _drop(self, block):
        self.refs[block] -= 1
        if self.refs[block] <= 1:
            del self.refs[block]
            self.free_blocks.append(block)

    def allocate(self, seq, n_tokens):
        need = -(-n_tokens // self.block_size)
        if need > len(self.free_blocks):
            return False
        self.tables[seq] = [self._new_block() for _ in range(need)]
        self.lengths[seq] = n_tokens
        return True

    def append(self, seq):
        table, n = self.tables[seq], self.lengths[seq]
        row = n % self.block_size
        if row == 0 or self.refs[table[-1]] > 1:   # a new block, or a private copy
            if not self.free_blocks:
                return None
            block = self._new_block()
            if row == 0:
                table.append(block)
            else:
                self._drop(table[-1])
                table[-1] = block
        self.lengths[seq] = n + 1
        return table[-1] * self.block_size + row

    def fork(self, parent, child):
        self.tables[child] = list(self.tables[parent])
        self.lengths[child] = self.lengths[parent]
        for block in self.tables[child]:
            self.refs[block] += 1

    def free(self, seq):
        for block in self.tables.pop(seq):
            self._drop(block)
        del self.lengths[seq]
