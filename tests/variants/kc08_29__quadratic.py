# A wrong answer to kc08_29 (attention is quadratic): the graded check must reject it.
kc08_29 = 'a'
