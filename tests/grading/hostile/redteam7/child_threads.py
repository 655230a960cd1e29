# CPU hog in the answer cell (kernel and judge's student child): 32 daemon threads spinning for ten minutes, started before the checks run, so they share the GIL and the box's CPU with every call the judge makes (and the other job slot's students share the machine); the answer is wrong
# target: ex03_2
import threading
import time


def spin(until=time.monotonic() + 600):
    n = 0
    while time.monotonic() < until:
        n += 1


for _ in range(32):
    threading.Thread(target=spin, daemon=True).start()


def bucket_index(length, edges):
    return 0
