def bucket_index(length, edges):
    if length > edges[-1]:
        raise ValueError(f"{length} tokens is above the last edge {edges[-1]}")
    i = 0
    while edges[i] < length:
        i += 1
    return i
