# A wrong answer to kc08_13: the graded check must reject it.
kc08_13 = 'padding to the longest'
