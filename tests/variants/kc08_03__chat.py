# A wrong answer to kc08_03: the graded check must reject it.
kc08_03 = 'a'
