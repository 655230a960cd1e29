def speedup_parts(fast, slow):
    """Bug: tokens/s over first arrival to last finish, idle gaps included (not busy time)."""
    def parts(res):
        tokens = sum(len(s.output) for s in res.sequences)
        span = max(s.finish for s in res.sequences) - min(s.arrival for s in res.sequences)
        busy = sum(st.ms for st in res.steps)
        return 1000.0 * tokens / span, tokens / len(res.steps), busy / len(res.steps)
    f, s = parts(fast), parts(slow)
    return {"tokens_per_s": f[0] / s[0], "tokens_per_step": f[1] / s[1], "ms_per_step": f[2] / s[2]}
