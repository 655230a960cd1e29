blocks = lambda n, size: -(-n // size)
def kv_admission(prompt_len, max_new_tokens, free_blocks, num_blocks, block_size,
                 admission="reserve"):
    """'admit', 'wait' or 'reject' for a request under a KV budget of num_blocks blocks."""
    if blocks(prompt_len + max_new_tokens, block_size) > num_blocks:
        return "reject"
    need = blocks(prompt_len + (max_new_tokens if admission == "reserve" else 0), block_size)
    return "admit" if need <= free_blocks else "wait"
