# A wrong answer to kc08_31 (cached blocks are shared, not copied): the graded check must reject it.
kc08_31 = 'c'
