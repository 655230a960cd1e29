def step_slots(rows, block_size):
    """Bug: positions restart at 0 for every sequence (the cached tokens are forgotten)."""
    positions, slots = [], []
    for table, cached, new in rows:
        for i in range(new):
            positions.append(i)
            slots.append(table[i // block_size] * block_size + i % block_size)
    return positions, slots
