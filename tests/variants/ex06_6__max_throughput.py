def pick_max_seqs(rows, slo_ttft_ms, slo_tpot_ms):
    """The max_seqs with the most goodput among the rows meeting both SLOs (ties: smaller)."""
    ok = [r for r in rows if r["ttft_p99_ms"] <= slo_ttft_ms and r["tpot_p99_ms"] <= slo_tpot_ms]
    if not ok:
        return None
    # bug: ranks by tokens/s (throughput), not by requests served within the SLOs
    return min(ok, key=lambda r: (-r["tokens_per_s"], r["max_seqs"]))["max_seqs"]
