# A wrong answer to kc08_09: the graded check must reject it.
kc08_09 = 'b'
