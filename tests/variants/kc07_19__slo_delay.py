# A wrong answer to kc07_19: the graded check must reject it.
kc07_19 = 'b'
