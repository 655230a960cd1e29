# A wrong answer to kc08_06: the graded check must reject it.
kc08_06 = 'a'
