def pick_max_seqs(rows, slo_ttft_ms, slo_tpot_ms):
    """The max_seqs with the most goodput among the rows meeting both SLOs (ties: smaller)."""
    ok = [r["max_seqs"] for r in rows
          if r["ttft_p99_ms"] <= slo_ttft_ms and r["tpot_p99_ms"] <= slo_tpot_ms]
    return max(ok) if ok else None  # bug: the most places that still meet the SLO
