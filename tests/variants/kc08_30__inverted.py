# A wrong answer to kc08_30 (the trade-off the wrong way round): the graded check must reject it.
kc08_30 = 'b'
