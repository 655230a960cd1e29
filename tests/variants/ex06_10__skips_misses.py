from labsupport.decoder.kvcache import block_hash


def prefix_hits(tokens, block_size, by_name):
    """Bug: goes on after a block that is not cached."""
    hits, parent = [], None
    for i in range((len(tokens) - 1) // block_size):
        parent = block_hash(parent, tokens[i * block_size:(i + 1) * block_size])
        if parent in by_name:
            hits.append(by_name[parent])
    return hits
