# A wrong answer to kc08_35 (a reservation holds the cap from admission): the graded check must reject it.
kc08_35 = 'c'
