# the lab's speedup_ref with its nested helper inlined for each run (a copier who 'simplifies'): the same sums, the same ratios
# target: ex06_7
def speedup_parts(fast, slow):
    """tokens/s over busy time, tokens per step and ms per step: each as fast / slow."""
    ft = sum(len(s.output) for s in fast.sequences)
    fb = sum(st.ms for st in fast.steps)
    sl = sum(len(s.output) for s in slow.sequences)
    sb = sum(st.ms for st in slow.steps)
    return {"tokens_per_s": (1000.0 * ft / fb) / (1000.0 * sl / sb),
            "tokens_per_step": (ft / len(fast.steps)) / (sl / len(slow.steps)),
            "ms_per_step": (fb / len(fast.steps)) / (sb / len(slow.steps))}
