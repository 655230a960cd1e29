# A wrong answer to kc07_15: the graded check must reject it.
kc07_15 = 'b'
