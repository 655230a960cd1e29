# A wrong answer to kc08_12: the graded check must reject it.
kc08_12 = '150 %'
