import math
def kv_admission(prompt_len, max_new_tokens, free_blocks, num_blocks, block_size,
                 admission="reserve"):
    """'admit', 'wait' or 'reject' for a request under a KV budget of num_blocks blocks."""
    total = math.ceil((prompt_len + max_new_tokens) / block_size)
    if total > num_blocks:
        return "reject"
    if admission == "reserve":
        needed = total
    else:
        needed = math.ceil(prompt_len / block_size)
    if needed <= free_blocks:
        return "admit"
    return "wait"
