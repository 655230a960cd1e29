def kv_admission(prompt_len, max_new_tokens, free_blocks, num_blocks, block_size,
                 admission="reserve"):
    """'admit', 'wait' or 'reject' for a request under a KV budget of num_blocks blocks."""
    full_blocks = (prompt_len + max_new_tokens + block_size - 1) // block_size
    if full_blocks > num_blocks:
        return "reject"
    if admission == "reserve":
        return "admit" if full_blocks <= free_blocks else "wait"
    prompt_blocks = (prompt_len + block_size - 1) // block_size
    return "admit" if prompt_blocks <= free_blocks else "wait"
