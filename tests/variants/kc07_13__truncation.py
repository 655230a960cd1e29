# A wrong answer to kc07_13: the graded check must reject it.
kc07_13 = 'truncation'
