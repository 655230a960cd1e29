# A wrong answer to kc08_19: the graded check must reject it.
kc08_19 = 'b'
