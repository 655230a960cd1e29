# A wrong answer to kc07_24: the graded check must reject it.
kc07_24 = 'a queue'
