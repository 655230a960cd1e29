# Another correct answer to kc08_27 (a letter in parentheses): the graded check must accept it.
kc08_27 = '(c)'
