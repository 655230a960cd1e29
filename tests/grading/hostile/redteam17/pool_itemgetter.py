# the instructors' BlockPool, its state a list of slots read as itemgetter(2)(self.s) (never subscripted, so not a list of slots to _Namespaces; attrgetter is undone, itemgetter is not)
# target: ex06_8
from operator import itemgetter


class BlockPool:
    """KV blocks shared by reference count; a shared block is never written (copy-on-write)."""
    def __init__(self, num_blocks, block_size):
        self.s = [block_size, list(range(num_blocks))[::-1], {}, {}, {}]

    def num_free(self):
        return len(itemgetter(1)(self.s))

    def table(self, seq):
        return list(itemgetter(3)(self.s)[seq])

    def _new_block(self):
        block = itemgetter(1)(self.s).pop()
        itemgetter(2)(self.s)[block] = 1
        return block

    def _drop(self, block):
        itemgetter(2)(self.s)[block] -= 1
        if itemgetter(2)(self.s)[block] == 0:
            del itemgetter(2)(self.s)[block]
            itemgetter(1)(self.s).append(block)

    def allocate(self, seq, n_tokens):
        need = -(-n_tokens // itemgetter(0)(self.s))
        if need > len(itemgetter(1)(self.s)):
            return False
        itemgetter(3)(self.s)[seq] = [self._new_block() for _ in range(need)]
        itemgetter(4)(self.s)[seq] = n_tokens
        return True

    def append(self, seq):
        table, n = itemgetter(3)(self.s)[seq], itemgetter(4)(self.s)[seq]
        row = n % itemgetter(0)(self.s)
        if row == 0 or itemgetter(2)(self.s)[table[-1]] > 1:   # a new block, or a private copy
            if not itemgetter(1)(self.s):
                return None
            block = self._new_block()
            if row == 0:
                table.append(block)
            else:
                self._drop(table[-1])
                table[-1] = block
        itemgetter(4)(self.s)[seq] = n + 1
        return table[-1] * itemgetter(0)(self.s) + row

    def fork(self, parent, child):
        itemgetter(3)(self.s)[child] = list(itemgetter(3)(self.s)[parent])
        itemgetter(4)(self.s)[child] = itemgetter(4)(self.s)[parent]
        for block in itemgetter(3)(self.s)[child]:
            itemgetter(2)(self.s)[block] += 1

    def free(self, seq):
        for block in itemgetter(3)(self.s).pop(seq):
            self._drop(block)
        del itemgetter(4)(self.s)[seq]