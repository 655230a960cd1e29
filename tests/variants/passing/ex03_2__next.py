def bucket_index(length, edges):
    found = next((i for i, edge in enumerate(edges) if length <= edge), None)
    if found is None:
        raise ValueError(f"length {length} does not fit")
    return found
