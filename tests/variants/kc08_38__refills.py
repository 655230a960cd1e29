# A wrong answer to kc08_38 (equal lengths leave no place to refill early): the graded check must reject it.
kc08_38 = 'a'
