# A wrong answer to kc08_23: the graded check must reject it.
kc08_23 = 'b'
