# A wrong answer to kc07_20: the graded check must reject it.
kc07_20 = 0.2
