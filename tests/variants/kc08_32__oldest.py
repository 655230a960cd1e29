# A wrong answer to kc08_32 (the oldest is kept, not preempted): the graded check must reject it.
kc08_32 = 'a'
