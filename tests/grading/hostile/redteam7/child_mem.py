# memory hog in the answer cell, so in the kernel and again in the judge's student child: 64 MiB blocks written through (resident, not lazily zeroed) until MemoryError or 6 GiB, all kept alive while the checks run; the answer itself is wrong (always bucket 0)
# target: ex03_2
hog = []
try:
    while len(hog) < 96:
        hog.append(b"\x01" * (64 << 20))
except MemoryError:
    pass


def bucket_index(length, edges):
    return 0
