import numpy as np


def decode_metrics(arrivals, token_times, slo_ttft_ms, slo_tpot_ms):
    """Another correct answer: numpy arrays throughout."""
    a = np.asarray(arrivals, float)
    first = np.array([t[0] for t in token_times])
    last = np.array([t[-1] for t in token_times])
    n = np.array([len(t) for t in token_times])
    with np.errstate(invalid="ignore", divide="ignore"):
        tpot = np.where(n > 1, (last - first) / (n - 1), np.nan)
    itl = np.concatenate([np.diff(t) for t in token_times])
    span = (last.max() - a.min()) / 1e3
    ok = (first - a <= slo_ttft_ms) & ~(tpot > slo_tpot_ms)
    return dict(ttft=first - a, tpot=tpot, e2e=last - a, itl=itl,
                tokens_per_s=n.sum() / span, goodput_rps=ok.sum() / span)
