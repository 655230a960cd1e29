def speedup_parts(fast, slow):
    """Bug: counts the rows each step computed, not the tokens generated."""
    def parts(res):
        rows = sum(st.seqs for st in res.steps)
        busy = sum(st.ms for st in res.steps)
        return 1000.0 * rows / busy, rows / len(res.steps), busy / len(res.steps)
    f, s = parts(fast), parts(slow)
    return {"tokens_per_s": f[0] / s[0], "tokens_per_step": f[1] / s[1], "ms_per_step": f[2] / s[2]}
