# A wrong answer to kc07_21: the graded check must reject it.
kc07_21 = 'a'
