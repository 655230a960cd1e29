# honest: prefix_hits walking full blocks with a while loop, the chain hash carried along
# target: ex06_10
from labsupport.decoder.kvcache import block_hash


def prefix_hits(tokens, block_size, by_name):
    """The cached blocks holding the leading full blocks of tokens, in order."""
    found = []
    prev = None
    start = 0
    # the last token is always computed again, so its block is never a hit
    while start + block_size <= len(tokens) - 1:
        name = block_hash(prev, tokens[start:start + block_size])
        block = by_name.get(name)
        if block is None:
            break
        found.append(block)
        prev = name
        start += block_size
    return found
