# A wrong answer to kc08_31 (prefix caching saves no decode step): the graded check must reject it.
kc08_31 = 'a'
