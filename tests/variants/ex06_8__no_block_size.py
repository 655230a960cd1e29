def step_slots(rows, block_size):
    """Bug: forgets that a block holds block_size slots."""
    positions, slots = [], []
    for table, cached, new in rows:
        for i in range(cached, cached + new):
            positions.append(i)
            slots.append(table[i // block_size] + i % block_size)
    return positions, slots
