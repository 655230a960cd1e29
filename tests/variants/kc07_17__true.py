# A wrong answer to kc07_17: the graded check must reject it.
kc07_17 = True
