# A wrong answer to kc07_04: the graded check must reject it.
kc07_04 = 'computing padding tokens'
