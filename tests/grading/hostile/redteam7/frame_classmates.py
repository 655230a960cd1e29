# framing classmates: a wrong answer that is only the most natural lines of schedule_step (the admission loop, the decode call, a comprehension) and scores under 0.8 itself, so that every classmate who wrote the natural answer 'holds' most of it (containment 0.86 for the instructors' solution) and goes to review as a copy of this student's answer
# target: ex06_1
def schedule_step(running, waiting, max_seqs, decode):
    while waiting and len(running) < max_seqs:
        running.append(waiting.popleft())
    decode(running)
    return [s for s in running if not s.done]
