def bucket_index(length, edges):
    if length > edges[-1]:
        raise ValueError("length above the last edge")
    lo, hi = 0, len(edges) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if edges[mid] >= length:
            hi = mid
        else:
            lo = mid + 1
    return lo
