# A wrong answer to kc07_12: the graded check must reject it.
kc07_12 = '150 %'
