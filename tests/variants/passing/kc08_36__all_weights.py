# Another correct answer to kc08_36 (in other words): the graded check must accept it.
kc08_36 = 'fine-tuning all the weights of a pretrained model'
