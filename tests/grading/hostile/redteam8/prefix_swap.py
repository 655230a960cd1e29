# a classmate's prefix_hits (the honest control's: the instructors' answer), renamed, with one product commuted: the same tokens but two, flagged in order
# target: ex06_10
from labsupport.decoder.kvcache import block_hash


def prefix_hits(tokens, block_size, by_name):
    """The cached blocks holding the leading full blocks of tokens, in order."""
    found, h = [], None
    for b in range((len(tokens) - 1) // block_size):
        h = block_hash(h, tokens[b * block_size:block_size * (b + 1)])
        if h not in by_name:
            break
        found.append(by_name[h])
    return found
