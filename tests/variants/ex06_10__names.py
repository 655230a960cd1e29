from labsupport.decoder.kvcache import block_hash


def prefix_hits(tokens, block_size, by_name):
    """Bug: returns the names, not the blocks that hold them."""
    hits, parent = [], None
    for i in range((len(tokens) - 1) // block_size):
        parent = block_hash(parent, tokens[i * block_size:(i + 1) * block_size])
        if parent not in by_name:
            break
        hits.append(parent)
    return hits
