# Bug: past capacity the formula turns negative (or divides by zero); the queue grows forever.
def md1_wait_ms(rate_per_s, service_ms):
    rho = rate_per_s * service_ms / 1000.0
    return rho * service_ms / (2.0 * (1.0 - rho)) if rho != 1.0 else float("nan")
