# A wrong answer to kc08_07: the graded check must reject it.
kc08_07 = 'PyTorch'
