# A wrong answer to kc08_33 (the packed mask is block-diagonal): the graded check must reject it.
kc08_33 = True
