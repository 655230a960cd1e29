# a wrong kv_admission that reads what an earlier judge of its job slot left and leaves the same for the next (files in /tmp, /dev/shm, its home and working folder), and tries the judges' template socket named in its judge's /proc/1/cmdline (a warm judge is a fork of the slot's template): the child's error says what it found (the student's feedback)
# target: ex06_2
import os
import socket
import time

MARK = "rt10-left-"


with open("/proc/self/status") as _status:
    _judged = "Seccomp:\t2" in _status.read()  # the judge's child (the kernel has no filter)


def _survey() -> str:
    places = ("/tmp", "/dev/shm", os.path.expanduser("~"), os.getcwd())
    found = []  # what is there before this box writes: another box's markers, or anything
    for place in places:
        try:
            found.append(f"{place}:" + ",".join(sorted(n[:14] for n in os.listdir(place))))
        except OSError as err:
            found.append(f"{place}:{type(err).__name__}")
    wrote = 0
    for place in places:
        try:
            with open(os.path.join(place, f"{MARK}{os.getpid()}-{time.time():.0f}"), "w") as f:
                f.write("left by an earlier box")
            wrote += 1
        except OSError:
            pass
    socks = []
    try:
        with open("/proc/1/cmdline", "rb") as f:
            argv = f.read().split(bytes(1))
    except OSError as err:
        argv = []
        socks.append(type(err).__name__)
    for arg in argv:
        if arg.endswith(b".sock"):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            try:
                s.connect(arg.decode())
                socks.append("CONNECTED")
            except OSError as err:
                socks.append(type(err).__name__)
            finally:
                s.close()
    return f"{' '.join(found)} wrote={wrote} template={socks}"


if not _judged:
    print("[rt10-left] kernel:", _survey())


def kv_admission(prompt_len, max_new_tokens, free_blocks, num_blocks, block_size,
                 policy="reserve"):
    raise RuntimeError("[rt10-left] " + _survey())
