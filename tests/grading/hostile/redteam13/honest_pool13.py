# an honest BlockPool from the notebook's text (a FIFO free list, a list of reference counts, explicit append/copy-on-write branches, ceil as (n + b - 1) // b): best_match 0.91 'order' against the solution since attribute names count as the code's own (0.23 before 1340c8e)
# target: ex06_8
class BlockPool:
    """KV blocks shared by reference count; a shared block is never written (copy-on-write)."""
    def __init__(self, num_blocks, block_size):
        self.block_size = block_size
        self.free_list = list(range(num_blocks))
        self.holders = [0] * num_blocks
        self.blocks = {}
        self.ntok = {}

    def num_free(self):
        return len(self.free_list)

    def table(self, seq):
        return list(self.blocks[seq])

    def _grab(self):
        b = self.free_list.pop(0)
        self.holders[b] = 1
        return b

    def _release(self, b):
        self.holders[b] -= 1
        if self.holders[b] == 0:
            self.free_list.append(b)

    def allocate(self, seq, n_tokens):
        n = (n_tokens + self.block_size - 1) // self.block_size
        if n > len(self.free_list):
            return False
        self.blocks[seq] = [self._grab() for _ in range(n)]
        self.ntok[seq] = n_tokens
        return True

    def append(self, seq):
        pos = self.ntok[seq]
        blocks = self.blocks[seq]
        offset = pos % self.block_size
        if offset == 0:
            if not self.free_list:
                return None
            blocks.append(self._grab())
        elif self.holders[blocks[-1]] > 1:
            if not self.free_list:
                return None
            fresh = self._grab()
            self._release(blocks[-1])
            blocks[-1] = fresh
        self.ntok[seq] = pos + 1
        return blocks[-1] * self.block_size + offset

    def fork(self, parent, child):
        self.blocks[child] = list(self.blocks[parent])
        self.ntok[child] = self.ntok[parent]
        for b in self.blocks[child]:
            self.holders[b] += 1

    def free(self, seq):
        for b in self.blocks.pop(seq):
            self._release(b)
        del self.ntok[seq]
