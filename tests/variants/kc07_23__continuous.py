# A wrong answer to kc07_23: the graded check must reject it.
kc07_23 = 'b'
