# A wrong answer to kc08_11: the graded check must reject it.
kc08_11 = 64
