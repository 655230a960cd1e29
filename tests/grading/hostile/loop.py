# never finish
while True:
    pass
