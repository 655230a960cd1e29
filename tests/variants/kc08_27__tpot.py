# A wrong answer to kc08_27 (the stream's speed, not the wait): the graded check must reject it.
kc08_27 = 'a'
