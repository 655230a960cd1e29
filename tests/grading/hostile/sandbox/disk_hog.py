# fill the disk: 64 MiB files wherever it can write (2 GiB at most)
import os, tempfile
written = 0
for folder in [os.getcwd(), os.path.expanduser("~"), tempfile.gettempdir(), "/dev/shm"]:
    for _ in range(8):
        try:
            with open(os.path.join(folder, f"hog{written}"), "wb") as f:
                f.write(b"x" * (64 << 20))
            written += 64
        except OSError:
            break
print("wrote", written, "MiB")
kc_answer = "z"
