# Bug: rate per second multiplied by milliseconds without converting.
import math


def md1_wait_ms(rate_per_s, service_ms):
    rho = rate_per_s * service_ms
    if rho >= 1.0:
        return math.inf
    return rho * service_ms / (2.0 * (1.0 - rho))
