# descriptor hog in the answer cell (kernel and judge's student child): every descriptor up to the limit taken (files, pipes, sockets), kept open, so that anything the grader opens later in that process (the code watch's reports, a result, an import) finds none; the answer is wrong
# target: ex03_2
import os
import socket

held = []
for make in (lambda: os.open(os.devnull, os.O_RDONLY), os.pipe, socket.socketpair):
    try:
        for _ in range(8192):
            held.append(make())
    except OSError:
        pass


def bucket_index(length, edges):
    return 0
