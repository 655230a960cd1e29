# A wrong answer to kc08_21: the graded check must reject it.
kc08_21 = 'a'
