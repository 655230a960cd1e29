# A wrong answer to kc07_18: the graded check must reject it.
kc07_18 = 15
