# A wrong answer to kc07_10: the graded check must reject it.
kc07_10 = 'the max delay'
