def kv_admission(prompt_len, max_new_tokens, free_blocks, num_blocks, block_size,
                 admission="reserve"):
    """'admit', 'wait' or 'reject' for a request under a KV budget of num_blocks blocks."""
    def blocks(tokens):
        return -(-tokens // block_size)
    worst = blocks(prompt_len + max_new_tokens)
    if worst > num_blocks:
        return "reject"
    need = worst if admission == "reserve" else blocks(prompt_len)
    return "admit" if need <= free_blocks else "wait"
