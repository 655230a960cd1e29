# allocate GBs of memory (4 GiB at most)
hog = []
for _ in range(16):
    hog.append(b"x" * (256 << 20))
kc_answer = "z"
