# A wrong answer to kc08_20: the graded check must reject it.
kc08_20 = 0.2
