def kv_admission(prompt_len, max_new_tokens, free_blocks, num_blocks, block_size,
                 admission="reserve"):
    """'admit', 'wait' or 'reject' for a request under the KV budget (blocks)."""
    full = (prompt_len + max_new_tokens) // block_size  # bug: rounds down, drops a partial block
    if full > num_blocks:
        return "reject"
    need = full if admission == "reserve" else prompt_len // block_size
    return "admit" if need <= free_blocks else "wait"
