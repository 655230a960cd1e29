from labsupport.decoder.kvcache import block_hash


def prefix_hits(tokens, block_size, by_name):
    """Bug: looks up every full block, so a fully cached prompt leaves nothing to compute."""
    hits, parent = [], None
    for i in range(len(tokens) // block_size):
        parent = block_hash(parent, tokens[i * block_size:(i + 1) * block_size])
        if parent not in by_name:
            break
        hits.append(by_name[parent])
    return hits
