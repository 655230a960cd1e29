from labsupport.decoder.kvcache import block_hash


def prefix_hits(tokens, block_size, by_name):
    """Bug: each block hashed on its own tokens only (no parent): the names do not chain."""
    hits = []
    for i in range((len(tokens) - 1) // block_size):
        name = block_hash(None, tokens[i * block_size:(i + 1) * block_size])
        if name not in by_name:
            break
        hits.append(by_name[name])
    return hits
