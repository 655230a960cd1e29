# the instructors' BlockPool with every own attribute a slot of one list by a constant index (self.s = [None] * 5; self.s[2] for self.refs): _Namespaces reads only string keys: best_match 0.25 (holds), token order 0.832
# target: ex06_8
class BlockPool:
    """KV blocks shared by reference count; a shared block is never written (copy-on-write)."""
    def __init__(self, num_blocks, block_size):
        self.s = [None] * 5
        self.s[0] = block_size
        self.s[1] = list(range(num_blocks))[::-1]   # pop() takes the lowest
        self.s[2] = {}                                     # block -> sequences holding it
        self.s[3], self.s[4] = {}, {}

    def num_free(self):
        return len(self.s[1])

    def table(self, seq):
        return list(self.s[3][seq])

    def _new_block(self):
        block = self.s[1].pop()
        self.s[2][block] = 1
        return block

    def _drop(self, block):
        self.s[2][block] -= 1
        if self.s[2][block] == 0:
            del self.s[2][block]
            self.s[1].append(block)

    def allocate(self, seq, n_tokens):
        need = -(-n_tokens // self.s[0])
        if need > len(self.s[1]):
            return False
        self.s[3][seq] = [self._new_block() for _ in range(need)]
        self.s[4][seq] = n_tokens
        return True

    def append(self, seq):
        table, n = self.s[3][seq], self.s[4][seq]
        row = n % self.s[0]
        if row == 0 or self.s[2][table[-1]] > 1:   # a new block, or a private copy
            if not self.s[1]:
                return None
            block = self._new_block()
            if row == 0:
                table.append(block)
            else:
                self._drop(table[-1])
                table[-1] = block
        self.s[4][seq] = n + 1
        return table[-1] * self.s[0] + row

    def fork(self, parent, child):
        self.s[3][child] = list(self.s[3][parent])
        self.s[4][child] = self.s[4][parent]
        for block in self.s[3][child]:
            self.s[2][block] += 1

    def free(self, seq):
        for block in self.s[3].pop(seq):
            self._drop(block)
        del self.s[4][seq]
