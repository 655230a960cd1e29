# A wrong answer to kc08_29 (at batch 1 decode is bound by memory, not compute): the graded check must reject it.
kc08_29 = 'd'
