# A wrong answer to kc08_31 (the cached blocks are shared, so memory is saved too): the graded check must reject it.
kc08_31 = 'a'
