"""The knowledge check's tolerant matching, and that its answers are nowhere in plain text."""
import re
from pathlib import Path

import nbformat
import pytest

from labsupport.exercises import kc07

ROOT = Path(__file__).resolve().parents[2]
SOLUTION = ROOT / "solutions" / "07_knowledge_check" / "07_knowledge_check.ipynb"

# Phrasings a student might write: all must pass the graded check ...
ACCEPT = {
    "kc07_01": ["max batch size and max queue delay", "max_batch, max_delay_ms",
                "batch size + timeout", "max_batch_size and max_queue_delay_microseconds",
                "the size of a batch and the waiting time"],
    "kc07_04": ["waiting for the timer", "it waits for the window to close",
                "sleeping until max_delay expires"],
    "kc07_07": ["Triton", "TensorFlow Serving", "TF-Serving", "TorchServe", "Ray Serve"],
    "kc07_10": ["KV cache", "the key-value cache memory", "free KV blocks", "kv_budget"],
    "kc07_12": ["60 %", "60%", 0.6, "0.60"],
    "kc07_13": ["bucketing", "shape buckets", "binning by length"],
    "kc07_16": ["They hang", "they wait forever", "their futures are never resolved"],
    "kc07_18": ["25 ms", 25, 25.0],
    "kc07_20": ["80 %", 0.8],
    "kc07_24": ["asyncio.Future", "a future"],
    "kc07_03": ["(b)", "B", " b) "],
    "kc07_05": [True, "true", "T"],
}
# ... and wrong ones must fail it.
REJECT = {
    "kc07_01": ["learning rate and epochs", "KV budget and max tokens", "the batch size"],
    "kc07_04": ["the GPU is busy", "padding"],
    "kc07_07": ["vLLM", "PyTorch", "Kubernetes"],
    "kc07_10": ["max_delay_ms", "the queue length", "GPU utilisation"],
    "kc07_12": [0.4, "40 %"],
    "kc07_13": ["padding", "truncation"],
    "kc07_16": ["they get the exception", "it is retried"],
    "kc07_24": ["a lock", "an event"],
}
# Negated or contradicting answers name the concept but deny it: they must fail ...
NEGATED = {
    "kc07_04": ["it is not waiting at all", "no waiting for the timer", "it never waits for the window",
                "it doesn't wait for the timer, it computes", "not sleeping until max_delay"],
    "kc07_16": ["they do not hang; they get the error", "they don't hang forever",
                "they never hang, the error reaches them", "they are not left waiting forever"],
    "kc07_10": ["not the KV cache but the activations", "the activations, not the KV cache",
                "activations rather than the KV cache", "the weights instead of the KV cache"],
    "kc07_13": ["not bucketing, just padding", "padding without bucketing"],
    "kc07_24": ["not a future, a lock"],
    "kc07_01": ["not max batch size and not max queue delay"],
}
# ... while more correct rephrasings (some with a harmless "not" elsewhere) keep passing.
PARAPHRASES = {
    "kc07_04": ["waiting for the delay timer to fire", "it waits: the window has not closed yet",
                "idle, waiting for max_delay_ms to pass"],
    "kc07_16": ["they hang, the exception is not delivered", "they are left waiting forever",
                "they wait forever because nobody sets their futures"],
    "kc07_10": ["the KV cache, not the activations", "key/value cache", "KV-cache memory"],
    "kc07_13": ["length bucketing, not plain padding", "bucketing by length"],
}
FORM_ERRORS = [("kc07_03", "d"), ("kc07_03", "b and c"), ("kc07_02", "maybe"),
               ("kc07_11", "lots"), ("kc07_01", ""), ("kc07_01", 42),
               ("kc07_01", " ".join(["batch delay"] * 20))]


@pytest.mark.parametrize("item, answer", [(i, a) for i, xs in ACCEPT.items() for a in xs])
def test_tolerant_answers_pass(item, answer):
    kc07.check(item, answer, hidden=True)


@pytest.mark.parametrize("item, answer", [(i, a) for i, xs in REJECT.items() for a in xs])
def test_wrong_answers_fail_with_a_neutral_message(item, answer):
    kc07.check(item, answer)  # the form is fine: the self-check passes
    with pytest.raises(AssertionError, match=rf"^{item}: not correct yet — re-read notebook"):
        kc07.check(item, answer, hidden=True)


@pytest.mark.parametrize("item, answer", [(i, a) for i, xs in NEGATED.items() for a in xs])
def test_negated_answers_fail(item, answer):
    with pytest.raises(AssertionError, match=rf"^{item}: not correct yet"):
        kc07.check(item, answer, hidden=True)


@pytest.mark.parametrize("item, answer", [(i, a) for i, xs in PARAPHRASES.items() for a in xs])
def test_rephrasings_pass(item, answer):
    kc07.check(item, answer, hidden=True)


@pytest.mark.parametrize("item, answer", FORM_ERRORS)
def test_malformed_answers_say_what_form_is_expected(item, answer):
    with pytest.raises(AssertionError, match=rf"^{item}: (answer|write|keep)"):
        kc07.check(item, answer)


def test_every_objective_has_items_and_there_are_twenty_autograded():
    autograded = {i: spec.objective for i, spec in kc07.KEY.items()}
    assert len(autograded) >= 20
    assert set(autograded.values()) == set(kc07.OBJECTIVES)
    nb = nbformat.read(SOLUTION, as_version=4)
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells]
    assert [i for i in ids if i and re.fullmatch(r"kc07_\d\d", i) and i not in kc07.KEY], \
        "there should be discussion items graded by hand"
    for c in nb.cells:  # each question names its objective
        if c.cell_type == "markdown" and c.source.startswith("### kc07_"):
            assert re.match(r"### kc07_\d\d · objective [1-6] · ", c.source)


def test_answers_are_not_in_the_module_or_the_release():
    """The solution's answers appear neither in kc07.py nor in the released notebook."""
    module = Path(kc07.__file__).read_text()
    release = (ROOT / "notebooks" / SOLUTION.parent.name / SOLUTION.name).read_text()
    nb = nbformat.read(SOLUTION, as_version=4)
    for c in nb.cells:
        gid = c.metadata.get("nbgrader", {}).get("grade_id")
        if gid in kc07.KEY and c.cell_type == "code":
            ns = {}
            exec("\n".join(l for l in c.source.splitlines() if not l.startswith("#")), ns)
            answer = ns[gid]
            if isinstance(answer, str) and len(answer) > 3:
                for text in (module, release):
                    assert answer.lower() not in text.lower(), f"{gid}'s answer is readable"
            assert f"{gid} = {answer!r}" not in release
