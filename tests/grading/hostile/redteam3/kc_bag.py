# one bag of the lab's own vocabulary (words every notebook uses), no sentence, given to every
# short-answer item: each needs only one word of each of its concept groups in 30 words
kc08_01 = ("batch size, wait window, timeout, KV cache blocks, bucketing, hang, future, "
           "Triton server, full fine tuning")
