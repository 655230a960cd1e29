# A wrong answer to kc07_08: the graded check must reject it.
kc07_08 = False
