# A wrong answer to kc08_18: the graded check must reject it.
kc08_18 = '10 ms'
