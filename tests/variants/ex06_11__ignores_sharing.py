def release_blocks(block_table, ref, named, evictable, free):
    """Bug: releases every block at once, even those another sequence still holds."""
    for block in reversed(block_table):
        ref[block] = 0
        if block in named:
            evictable[block] = None
        else:
            free.append(block)
