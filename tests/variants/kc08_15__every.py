# A wrong answer to kc08_15: the graded check must reject it.
kc08_15 = 'b'
