# ofd_oracle split between two students graded at the same time on the two job slots: this one's judge child asks over byte-range locks on one standard-library file (its first call waits up to 40 s), relay_a_helper's kernel (another student's, the genuine package) answers; alone it gets nothing
# target: ex06_2
import fcntl
import os
import struct
import time

stdlib = os.path.dirname(os.__file__)
shared = open(sorted(f"{stdlib}/{n}" for n in os.listdir(stdlib) if n.endswith(".py"))[41])
link = {"turn": 0, "up": False, "down": False}
status_text = open("/proc/self/status").read()


def lockbit(at, on=None):
    """Set byte ``at`` (a read lock held or not); with ``on`` None: is another holding it?"""
    if on is None:
        ask = struct.pack("@hhqqi", fcntl.F_WRLCK, 0, at, 1, 0) + bytes(4)
        reply = fcntl.fcntl(shared.fileno(), fcntl.F_OFD_GETLK, ask)
        return struct.unpack("@h", reply[:2])[0] != fcntl.F_UNLCK
    kind = fcntl.F_RDLCK if on else fcntl.F_UNLCK
    fcntl.fcntl(shared.fileno(), fcntl.F_OFD_SETLK, struct.pack("@hhqqi", kind, 0, at, 1, 0) + bytes(4))
    return on


def kv_admission(prompt_len, max_new_tokens, free_blocks, num_blocks, block_size,
                 admission="reserve"):
    """A classmate's kernel's answer, when it answers; else "wait"."""
    kinds = ("reserve", "on_demand")
    fields = (prompt_len, max_new_tokens, free_blocks, num_blocks, block_size,
              kinds.index(admission) if admission in kinds else 999)
    if "Seccomp:\t2" not in status_text or link["down"] or any(not 0 <= x < 256 for x in fields):
        return "wait"
    for offset, value in enumerate(fields):
        for k in range(8):
            lockbit(8 * offset + k, (value >> k) & 1)
    link["turn"] ^= 1
    lockbit(48, link["turn"])
    t_end = time.monotonic() + (3.0 if link["up"] else 40.0)
    while int(lockbit(51)) != link["turn"]:
        if time.monotonic() >= t_end:
            link["down"] = True
            return "wait"
        time.sleep(0.0002)
    link["up"] = True
    return ("admit", "wait", "reject")[int(lockbit(49)) | int(lockbit(50)) << 1]
