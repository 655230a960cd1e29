# A wrong answer to kc08_05: the graded check must reject it.
kc08_05 = False
