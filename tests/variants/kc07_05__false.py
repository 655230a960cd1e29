# A wrong answer to kc07_05: the graded check must reject it.
kc07_05 = False
