# A wrong answer to kc08_35 (that is on-demand growth): the graded check must reject it.
kc08_35 = 'a'
