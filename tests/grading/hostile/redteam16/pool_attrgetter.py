# the instructors' BlockPool whose reads of its own attributes outside __init__ are operator.attrgetter('refs')(self): no canonical rewrite of attrgetter: best_match 0.31 (holds), token order 0.0
# target: ex06_8
from operator import attrgetter


class BlockPool:
    """KV blocks shared by reference count; a shared block is never written (copy-on-write)."""
    def __init__(self, num_blocks, block_size):
        self.block_size = block_size
        self.free_blocks = list(range(num_blocks))[::-1]   # pop() takes the lowest
        self.refs = {}                                     # block -> sequences holding it
        self.tables, self.lengths = {}, {}

    def num_free(self):
        return len(attrgetter('free_blocks')(self))

    def table(self, seq):
        return list(attrgetter('tables')(self)[seq])

    def _new_block(self):
        block = attrgetter('free_blocks')(self).pop()
        attrgetter('refs')(self)[block] = 1
        return block

    def _drop(self, block):
        attrgetter('refs')(self)[block] -= 1
        if attrgetter('refs')(self)[block] == 0:
            del attrgetter('refs')(self)[block]
            attrgetter('free_blocks')(self).append(block)

    def allocate(self, seq, n_tokens):
        need = -(-n_tokens // attrgetter('block_size')(self))
        if need > len(attrgetter('free_blocks')(self)):
            return False
        attrgetter('tables')(self)[seq] = [self._new_block() for _ in range(need)]
        attrgetter('lengths')(self)[seq] = n_tokens
        return True

    def append(self, seq):
        table, n = attrgetter('tables')(self)[seq], attrgetter('lengths')(self)[seq]
        row = n % attrgetter('block_size')(self)
        if row == 0 or attrgetter('refs')(self)[table[-1]] > 1:   # a new block, or a private copy
            if not attrgetter('free_blocks')(self):
                return None
            block = self._new_block()
            if row == 0:
                table.append(block)
            else:
                self._drop(table[-1])
                table[-1] = block
        attrgetter('lengths')(self)[seq] = n + 1
        return table[-1] * attrgetter('block_size')(self) + row

    def fork(self, parent, child):
        attrgetter('tables')(self)[child] = list(attrgetter('tables')(self)[parent])
        attrgetter('lengths')(self)[child] = attrgetter('lengths')(self)[parent]
        for block in attrgetter('tables')(self)[child]:
            attrgetter('refs')(self)[block] += 1

    def free(self, seq):
        for block in attrgetter('tables')(self).pop(seq):
            self._drop(block)
        del attrgetter('lengths')(self)[seq]
