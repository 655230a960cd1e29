# A wrong answer to kc07_14: the graded check must reject it.
kc07_14 = 'b'
