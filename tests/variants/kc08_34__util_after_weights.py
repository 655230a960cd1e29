# A wrong answer to kc08_34 (utilisation applied after taking the weights out): the graded check must reject it.
kc08_34 = 58
