# the lab's kv_admission (= the solution) with the sum inside the first ceiling commuted, the comparisons turned round and the prompt's blocks named before the test
# target: ex06_2
def kv_admission(prompt_len, max_new_tokens, free_blocks, num_blocks, block_size,
                 admission="reserve"):
    """'admit', 'wait' or 'reject' for a request under a KV budget of num_blocks blocks."""
    full = -(-(max_new_tokens + prompt_len) // block_size)
    if num_blocks < full:
        return "reject"
    prompt = -(-prompt_len // block_size)
    need = full if admission == "reserve" else prompt
    return "admit" if free_blocks >= need else "wait"
