class BlockPool:
    """Another correct design: no reference counts kept; who holds a block is read off the
    tables themselves, and the free blocks are a set (the lowest is taken)."""
    def __init__(self, num_blocks, block_size):
        self.bs = block_size
        self.free_set = set(range(num_blocks))
        self.seqs = {}                  # seq -> [table, tokens]

    def holders(self, block):
        return sum(block in t for t, _ in self.seqs.values())

    def num_free(self):
        return len(self.free_set)

    def table(self, seq):
        return self.seqs[seq][0][:]

    def take(self):
        block = min(self.free_set)
        self.free_set.discard(block)
        return block

    def allocate(self, seq, n_tokens):
        blocks = (n_tokens + self.bs - 1) // self.bs
        if blocks > len(self.free_set):
            return False
        self.seqs[seq] = [[self.take() for _ in range(blocks)], n_tokens]
        return True

    def append(self, seq):
        table, n = self.seqs[seq]
        offset = n % self.bs
        if offset and self.holders(table[-1]) == 1:
            self.seqs[seq][1] += 1
            return table[-1] * self.bs + offset
        if not self.free_set:
            return None
        if offset:
            table[-1] = self.take()     # the shared block stays with the others
        else:
            table.append(self.take())
        self.seqs[seq][1] += 1
        return table[-1] * self.bs + offset

    def fork(self, parent, child):
        table, n = self.seqs[parent]
        self.seqs[child] = [table[:], n]

    def free(self, seq):
        table, _ = self.seqs.pop(seq)
        self.free_set.update(b for b in table if self.holders(b) == 0)
