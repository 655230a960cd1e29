# A wrong answer to kc08_08: the graded check must reject it.
kc08_08 = False
