def release_blocks(block_table, ref, named, evictable, free):
    """Bug: every released block goes back to free, so nothing stays cached."""
    for block in reversed(block_table):
        ref[block] -= 1
        if ref[block] == 0:
            free.append(block)
