def release_blocks(block_table, ref, named, evictable, free):
    """Bug: blocks without a name join the LRU queue too (nobody can ever find them)."""
    for block in reversed(block_table):
        ref[block] -= 1
        if ref[block] == 0:
            evictable[block] = None
