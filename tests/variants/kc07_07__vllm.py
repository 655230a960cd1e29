# A wrong answer to kc07_07: the graded check must reject it.
kc07_07 = 'vLLM'
