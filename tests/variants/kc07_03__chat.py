# A wrong answer to kc07_03: the graded check must reject it.
kc07_03 = 'a'
