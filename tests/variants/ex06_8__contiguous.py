def step_slots(rows, block_size):
    """Bug: the slot is the position itself, as if the cache were one contiguous array."""
    positions = [i for _, cached, new in rows for i in range(cached, cached + new)]
    return positions, list(positions)
