# A wrong answer to kc07_22: the graded check must reject it.
kc07_22 = False
