# the lab's bucket_of typed into the answer cell unchanged but as a static method of a class of the cell's own, the answer a thin function that checks the range and calls it (no token of the copy changed: the control for one_token)
# target: ex03_2
class _Bisect:
    @staticmethod
    def bucket_of(length, edges):
        lo, hi = 0, len(edges)
        while lo < hi:  # bisect: first edge >= length
            mid = (lo + hi) // 2
            if edges[mid] < length:
                lo = mid + 1
            else:
                hi = mid
        return lo


def bucket_index(length, edges):
    if length > edges[-1]:
        raise ValueError(f"length {length} is above the last edge")
    return _Bisect.bucket_of(length, edges)
