# A wrong answer to kc08_01: the graded check must reject it.
kc08_01 = 'the batch size'
