# a fork bomb (bounded: 1000 children, each gone after 60 s)
import os, time
for _ in range(1000):
    try:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
    except OSError:
        break
kc_answer = "z"
