# A wrong answer to kc08_04: the graded check must reject it.
kc08_04 = 'computing padding tokens'
