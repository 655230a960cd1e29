def pick_max_seqs(rows, slo_ttft_ms, slo_tpot_ms):
    """Another correct answer: sort the rows by max_seqs, keep the first strict best."""
    best = None
    for r in sorted(rows, key=lambda r: r["max_seqs"]):
        meets = not (r["ttft_p99_ms"] > slo_ttft_ms or r["tpot_p99_ms"] > slo_tpot_ms)
        if meets and (best is None or r["goodput_rps"] > best["goodput_rps"]):
            best = r
    return best["max_seqs"] if best else None
