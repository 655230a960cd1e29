def release_blocks(block_table, ref, named, evictable, free):
    """Another correct answer: count down first, then place the blocks that reached 0."""
    for block in block_table:
        ref[block] = ref[block] - 1
    for block in block_table[::-1]:
        if ref[block] > 0:
            continue
        if block in named:
            evictable[block] = None
        else:
            free.append(block)
