# A wrong answer to kc07_01: the graded check must reject it.
kc07_01 = 'max_num_seqs and max_num_batched_tokens'
