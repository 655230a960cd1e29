# A wrong answer to kc08_28 (keys only, no values): the graded check must reject it.
kc08_28 = 28672
