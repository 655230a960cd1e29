# A wrong answer to kc07_01: the graded check must reject it.
kc07_01 = 'the batch size'
