# an honest pick_max_seqs of its own (a loop, not the lab's rule) whose answer cell ends with the notebook's own self-test, check_ex06_6(pick_max_seqs), as a student who tests before moving on writes it: full points, no flag?
# target: ex06_6
def pick_max_seqs(rows, slo_ttft_ms, slo_tpot_ms):
    """The smallest max_seqs among those with the most goodput within both SLOs."""
    best = None
    for r in sorted(rows, key=lambda x: x["max_seqs"]):
        if r["ttft_p99_ms"] > slo_ttft_ms or r["tpot_p99_ms"] > slo_tpot_ms:
            continue
        if best is None or r["goodput_rps"] > best["goodput_rps"]:
            best = r
    return None if best is None else best["max_seqs"]


from labsupport.exercises.ex06 import check_ex06_6  # noqa: E402
check_ex06_6(pick_max_seqs)
