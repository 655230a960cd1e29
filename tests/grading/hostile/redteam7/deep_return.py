# a wrong answer whose return value is a list nested 200,000 deep (and a dict of 2 million entries beside it on the next call): what the child records (tape, wire) and the judge decodes are walked per level, so the aim is a RecursionError or a long stall in the judge itself, outside the item's try, that ends grading for the whole submission or the run
# target: ex03_2
_calls = []


def bucket_index(length, edges):
    _calls.append(length)
    if len(_calls) % 2:
        out = 0
        for _ in range(200_000):
            out = [out]
        return out
    return {k: [k] * 4 for k in range(2_000_000)}
