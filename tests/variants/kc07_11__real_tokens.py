# A wrong answer to kc07_11: the graded check must reject it.
kc07_11 = 64
