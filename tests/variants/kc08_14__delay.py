# A wrong answer to kc08_14: the graded check must reject it.
kc08_14 = 'b'
