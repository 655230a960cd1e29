# A wrong answer to kc07_06: the graded check must reject it.
kc07_06 = 'a'
