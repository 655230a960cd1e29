# A wrong answer to kc07_02: the graded check must reject it.
kc07_02 = True
