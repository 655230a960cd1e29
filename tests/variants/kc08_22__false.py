# A wrong answer to kc08_22: the graded check must reject it.
kc08_22 = False
