# the instructors' BlockPool with its state on a holder kept in a module dict by id(self) (_S[id(self)].refs): _Holders follows only attribute paths from a name: best_match 0.25 (holds), token order 0.809
# target: ex06_8
class _State:
    pass


_S = {}


class BlockPool:
    """KV blocks shared by reference count; a shared block is never written (copy-on-write)."""
    def __init__(self, num_blocks, block_size):
        _S[id(self)] = _State()
        _S[id(self)].block_size = block_size
        _S[id(self)].free_blocks = list(range(num_blocks))[::-1]   # pop() takes the lowest
        _S[id(self)].refs = {}                                     # block -> sequences holding it
        _S[id(self)].tables, _S[id(self)].lengths = {}, {}

    def num_free(self):
        return len(_S[id(self)].free_blocks)

    def table(self, seq):
        return list(_S[id(self)].tables[seq])

    def _new_block(self):
        block = _S[id(self)].free_blocks.pop()
        _S[id(self)].refs[block] = 1
        return block

    def _drop(self, block):
        _S[id(self)].refs[block] -= 1
        if _S[id(self)].refs[block] == 0:
            del _S[id(self)].refs[block]
            _S[id(self)].free_blocks.append(block)

    def allocate(self, seq, n_tokens):
        need = -(-n_tokens // _S[id(self)].block_size)
        if need > len(_S[id(self)].free_blocks):
            return False
        _S[id(self)].tables[seq] = [self._new_block() for _ in range(need)]
        _S[id(self)].lengths[seq] = n_tokens
        return True

    def append(self, seq):
        table, n = _S[id(self)].tables[seq], _S[id(self)].lengths[seq]
        row = n % _S[id(self)].block_size
        if row == 0 or _S[id(self)].refs[table[-1]] > 1:   # a new block, or a private copy
            if not _S[id(self)].free_blocks:
                return None
            block = self._new_block()
            if row == 0:
                table.append(block)
            else:
                self._drop(table[-1])
                table[-1] = block
        _S[id(self)].lengths[seq] = n + 1
        return table[-1] * _S[id(self)].block_size + row

    def fork(self, parent, child):
        _S[id(self)].tables[child] = list(_S[id(self)].tables[parent])
        _S[id(self)].lengths[child] = _S[id(self)].lengths[parent]
        for block in _S[id(self)].tables[child]:
            _S[id(self)].refs[block] += 1

    def free(self, seq):
        for block in _S[id(self)].tables.pop(seq):
            self._drop(block)
        del _S[id(self)].lengths[seq]
