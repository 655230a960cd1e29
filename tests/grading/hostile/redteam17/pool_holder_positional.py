# the instructors' BlockPool, its state on a holder kept by the instance in a module dict and built with a positional argument (_S[self] = _State(self)): _Holders wants a call without positional arguments
# target: ex06_8
class _State:
    def __init__(self, owner):
        self.owner = owner


_S = {}


class BlockPool:
    """KV blocks shared by reference count; a shared block is never written (copy-on-write)."""
    def __init__(self, num_blocks, block_size):
        _S[self] = _State(self)
        _S[self].block_size = block_size
        _S[self].free_blocks = list(range(num_blocks))[::-1]   # pop() takes the lowest
        _S[self].refs = {}                                     # block -> sequences holding it
        _S[self].tables, _S[self].lengths = {}, {}

    def num_free(self):
        return len(_S[self].free_blocks)

    def table(self, seq):
        return list(_S[self].tables[seq])

    def _new_block(self):
        block = _S[self].free_blocks.pop()
        _S[self].refs[block] = 1
        return block

    def _drop(self, block):
        _S[self].refs[block] -= 1
        if _S[self].refs[block] == 0:
            del _S[self].refs[block]
            _S[self].free_blocks.append(block)

    def allocate(self, seq, n_tokens):
        need = -(-n_tokens // _S[self].block_size)
        if need > len(_S[self].free_blocks):
            return False
        _S[self].tables[seq] = [self._new_block() for _ in range(need)]
        _S[self].lengths[seq] = n_tokens
        return True

    def append(self, seq):
        table, n = _S[self].tables[seq], _S[self].lengths[seq]
        row = n % _S[self].block_size
        if row == 0 or _S[self].refs[table[-1]] > 1:   # a new block, or a private copy
            if not _S[self].free_blocks:
                return None
            block = self._new_block()
            if row == 0:
                table.append(block)
            else:
                self._drop(table[-1])
                table[-1] = block
        _S[self].lengths[seq] = n + 1
        return table[-1] * _S[self].block_size + row

    def fork(self, parent, child):
        _S[self].tables[child] = list(_S[self].tables[parent])
        _S[self].lengths[child] = _S[self].lengths[parent]
        for block in _S[self].tables[child]:
            _S[self].refs[block] += 1

    def free(self, seq):
        for block in _S[self].tables.pop(seq):
            self._drop(block)
        del _S[self].lengths[seq]