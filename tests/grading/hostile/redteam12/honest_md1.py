# an honest md1_wait_ms written from its docstring and the textbook Pollaczek-Khinchine formula (rho = lambda * S; W = rho * S / (2 (1 - rho))): the copy review says 'similar to the instructors' solution' (score 0.93, the same tokens in order): a false accusation (already at 2b34d5e)
# target: ex01_3
import math


def md1_wait_ms(rate_per_s, service_ms):
    """Mean time (ms) a request waits in the queue of an M/D/1 server; math.inf if ρ ≥ 1."""
    rho = rate_per_s * service_ms / 1000.0
    if rho >= 1:
        return math.inf
    return rho * service_ms / (2 * (1 - rho))
