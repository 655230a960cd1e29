def pick_max_seqs(rows, slo_ttft_ms, slo_tpot_ms):
    """The max_seqs with the most goodput among the rows meeting both SLOs (ties: smaller)."""
    ok = [r for r in rows if r["ttft_p99_ms"] <= slo_ttft_ms]  # bug: TPOT never checked
    if not ok:
        return None
    return min(ok, key=lambda r: (-r["goodput_rps"], r["max_seqs"]))["max_seqs"]
