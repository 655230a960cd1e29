# A wrong answer to kc07_16: the graded check must reject it.
kc07_16 = 'the batch is retried'
