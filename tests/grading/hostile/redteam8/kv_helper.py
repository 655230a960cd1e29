# the lab's kv_admission (= the solution) with its ceiling division pulled out into a helper of the cell: otherwise token for token
# target: ex06_2
def _blocks(tokens, block_size):
    return -(-tokens // block_size)


def kv_admission(prompt_len, max_new_tokens, free_blocks, num_blocks, block_size,
                 admission="reserve"):
    """'admit', 'wait' or 'reject' for a request under a KV budget of num_blocks blocks."""
    full = _blocks(prompt_len + max_new_tokens, block_size)
    if full > num_blocks:
        return "reject"
    need = full if admission == "reserve" else _blocks(prompt_len, block_size)
    return "admit" if need <= free_blocks else "wait"
