# output flood from inside the answer's function, so it happens during each of the judge's calls in the student child, not only when the cell runs: 4 MiB to stdout and 4 MiB to stderr per call (lines of 64 KiB, flushed), a few hundred MiB over the hidden cases; the answer is wrong
# target: ex03_2
import os

_line = "y" * (64 << 10)


def bucket_index(length, edges):
    for _ in range(64):
        print(_line, flush=True)
        os.write(2, _line.encode() + b"\n")
    return 0
