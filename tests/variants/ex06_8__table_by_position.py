def step_slots(rows, block_size):
    """Bug: indexes the block table with the position, not with the block number."""
    positions, slots = [], []
    for table, cached, new in rows:
        for i in range(cached, cached + new):
            positions.append(i)
            slots.append(table[i % len(table)] * block_size + i % block_size)
    return positions, slots
