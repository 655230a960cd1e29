# A wrong answer to kc08_01: the graded check must reject it.
kc08_01 = 'max_num_seqs and max_num_batched_tokens'
