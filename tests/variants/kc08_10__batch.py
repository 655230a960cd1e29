# A wrong answer to kc08_10: the graded check must reject it.
kc08_10 = 'the batch size'
