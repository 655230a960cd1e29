# Another correct answer to kc08_28 (thousands grouped, with the unit): the graded check must accept it.
kc08_28 = '57,344 bytes'
