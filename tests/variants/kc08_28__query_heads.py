# A wrong answer to kc08_28 (the 28 query heads instead of the 4 KV heads): the graded check must reject it.
kc08_28 = 401408
