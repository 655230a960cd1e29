# A wrong answer to kc08_16: the graded check must reject it.
kc08_16 = 'the batch is retried'
