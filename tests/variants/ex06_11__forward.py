def release_blocks(block_table, ref, named, evictable, free):
    """Bug: releases the first block first, so the prefix is evicted before its tail."""
    for block in block_table:
        ref[block] -= 1
        if ref[block] == 0:
            if block in named:
                evictable[block] = None
            else:
                free.append(block)
