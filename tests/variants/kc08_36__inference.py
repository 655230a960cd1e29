# A wrong answer to kc08_36 (12.3 is inference; 12.4 is not): the graded check must reject it.
kc08_36 = 'inference optimisation'
