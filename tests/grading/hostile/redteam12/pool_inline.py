# the instructors' BlockPool with copier edits the canonical form does not undo: its two helpers written out by hand at each call (the pop-and-count, the drop-and-free), the comprehension turned into a while loop, the copy-on-write branch turned into an early return, -(-a // b) as (a + b - 1) // b, x -= 1 as x = x - 1, del as pop, list(x) as x[:], the reversed range as a comprehension: best_match 0.15 against the solution
# target: ex06_8
class BlockPool:
    """KV blocks shared by reference count; a shared block is never written (copy-on-write)."""
    def __init__(self, num_blocks, block_size):
        self.bs = block_size
        self.pool = [num_blocks - 1 - i for i in range(num_blocks)]
        self.count = {}
        self.tab = {}
        self.size = {}

    def num_free(self):
        return len(self.pool)

    def table(self, seq):
        return self.tab[seq][:]

    def allocate(self, seq, n_tokens):
        need = (n_tokens + self.bs - 1) // self.bs
        if len(self.pool) < need:
            return False
        blocks = []
        while len(blocks) < need:
            b = self.pool.pop()
            self.count[b] = 1
            blocks.append(b)
        self.tab[seq] = blocks
        self.size[seq] = n_tokens
        return True

    def append(self, seq):
        t = self.tab[seq]
        n = self.size[seq]
        r = n % self.bs
        if r != 0 and self.count[t[-1]] <= 1:
            self.size[seq] = n + 1
            return t[-1] * self.bs + r
        if len(self.pool) == 0:
            return None
        b = self.pool.pop()
        self.count[b] = 1
        if r == 0:
            t.append(b)
        else:
            old = t[-1]
            self.count[old] = self.count[old] - 1
            if not self.count[old]:
                self.count.pop(old)
                self.pool.append(old)
            t[-1] = b
        self.size[seq] = n + 1
        return t[-1] * self.bs + r

    def fork(self, parent, child):
        self.tab[child] = self.tab[parent][:]
        self.size[child] = self.size[parent]
        for b in self.tab[child]:
            self.count[b] = self.count[b] + 1

    def free(self, seq):
        for b in self.tab.pop(seq):
            self.count[b] = self.count[b] - 1
            if not self.count[b]:
                self.count.pop(b)
                self.pool.append(b)
        self.size.pop(seq)
