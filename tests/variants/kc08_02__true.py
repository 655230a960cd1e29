# A wrong answer to kc08_02: the graded check must reject it.
kc08_02 = True
