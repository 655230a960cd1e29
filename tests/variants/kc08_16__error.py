# A wrong answer to kc08_16: the graded check must reject it.
kc08_16 = 'they receive the exception'
