# hang so that no interrupt helps: SIGINT ignored, then loop forever
import signal
signal.signal(signal.SIGINT, signal.SIG_IGN)
while True:
    pass
