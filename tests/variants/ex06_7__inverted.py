def speedup_parts(fast, slow):
    """Bug: slow / fast."""
    def parts(res):
        tokens = sum(len(s.output) for s in res.sequences)
        busy = sum(st.ms for st in res.steps)
        return 1000.0 * tokens / busy, tokens / len(res.steps), busy / len(res.steps)
    f, s = parts(fast), parts(slow)
    return {"tokens_per_s": s[0] / f[0], "tokens_per_step": s[1] / f[1], "ms_per_step": s[2] / f[2]}
