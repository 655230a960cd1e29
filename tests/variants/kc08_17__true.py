# A wrong answer to kc08_17: the graded check must reject it.
kc08_17 = True
