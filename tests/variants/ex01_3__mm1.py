# Bug: the M/M/1 wait (exponential service) for a server whose service time is fixed.
import math


def md1_wait_ms(rate_per_s, service_ms):
    rho = rate_per_s * service_ms / 1000.0
    if rho >= 1.0:
        return math.inf
    return rho * service_ms / (1.0 - rho)
