# Another correct answer to kc08_28 (the formula itself): the graded check must accept it.
kc08_28 = 2 * 28 * 4 * (3584 // 28) * 2
