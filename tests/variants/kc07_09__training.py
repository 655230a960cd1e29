# A wrong answer to kc07_09: the graded check must reject it.
kc07_09 = 'b'
