from labsupport.decoder.kvcache import block_hash


def prefix_hits(tokens, block_size, by_name):
    """Another correct answer: name the blocks first, then take the cached run."""
    usable = (len(tokens) - 1) // block_size
    names, parent = [], None
    for start in range(0, usable * block_size, block_size):
        parent = block_hash(parent, tuple(tokens[start:start + block_size]))
        names.append(parent)
    out = []
    for name in names:
        block = by_name.get(name)
        if block is None:
            return out
        out.append(block)
    return out
