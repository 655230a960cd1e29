"""The knowledge check's tolerant matching against the grader's key (``keys/kc08.json``),
and that the package holds no answer."""
import re
from pathlib import Path

import nbformat
import pytest

from labsupport.exercises import answer_key, kc08

ROOT = Path(__file__).resolve().parents[2]
SOLUTION = ROOT / "solutions" / "08_knowledge_check" / "08_knowledge_check.ipynb"

# Phrasings a student might write: all must pass the graded check ...
ACCEPT = {
    "kc08_01": ["max batch size and max queue delay", "max_batch, max_delay_ms",
                "batch size + timeout", "max_batch_size and max_queue_delay_microseconds",
                "the size of a batch and the waiting time"],
    "kc08_04": ["waiting for the timer", "it waits for the window to close",
                "sleeping until max_delay expires"],
    "kc08_07": ["Triton", "TensorFlow Serving", "TF-Serving", "TorchServe", "Ray Serve"],
    "kc08_10": ["KV cache", "the key-value cache memory", "free KV blocks", "kv_budget"],
    "kc08_12": ["60 %", "60%", 0.6, "0.60"],
    "kc08_13": ["bucketing", "shape buckets", "binning by length"],
    "kc08_16": ["They hang", "they wait forever", "their futures are never resolved"],
    "kc08_18": ["25 ms", 25, 25.0],
    "kc08_20": ["80 %", 0.8],
    "kc08_24": ["asyncio.Future", "a future"],
    "kc08_03": ["(b)", "B", " b) "],
    "kc08_05": [True, "true", "T"],
    "kc08_12": ["0,6"],  # a decimal comma still reads as one where decimals count
    "kc08_28": [57344, "57344", "57,344", "57 344 bytes", "57_344", 57344.0],
    "kc08_34": [57, "57 sequences", 57.04],
    "kc08_36": ["full fine-tuning", "Full Fine Tuning", "full-parameter fine-tuning",
                "fine-tuning all the weights", "fine tune the whole model",
                "not LoRA but full fine-tuning"],
}
# ... and wrong ones must fail it.
REJECT = {
    "kc08_01": ["learning rate and epochs", "KV budget and max tokens", "the batch size"],
    "kc08_04": ["the GPU is busy", "padding"],
    "kc08_07": ["vLLM", "PyTorch", "Kubernetes"],
    "kc08_10": ["max_delay_ms", "the queue length", "GPU utilisation"],
    "kc08_12": [0.4, "40 %"],
    "kc08_13": ["padding", "truncation"],
    "kc08_16": ["they get the exception", "it is retried"],
    "kc08_24": ["a lock", "an event"],
    "kc08_28": [401408, "28,672", 57, "57.344"],
    "kc08_34": [52, 58, 114],
    "kc08_36": ["fine-tuning", "LoRA fine-tuning", "parameter-efficient fine-tuning",
                "inference optimisation", "full inference serving", "pretraining"],
}
# Negated or contradicting answers name the concept but deny it: they must fail ...
NEGATED = {
    "kc08_04": ["it is not waiting at all", "no waiting for the timer", "it never waits for the window",
                "it doesn't wait for the timer, it computes", "not sleeping until max_delay"],
    "kc08_16": ["they do not hang; they get the error", "they don't hang forever",
                "they never hang, the error reaches them", "they are not left waiting forever"],
    "kc08_10": ["not the KV cache but the activations", "the activations, not the KV cache",
                "activations rather than the KV cache", "the weights instead of the KV cache"],
    "kc08_13": ["not bucketing, just padding", "padding without bucketing"],
    "kc08_24": ["not a future, a lock"],
    "kc08_01": ["not max batch size and not max queue delay"],
    "kc08_36": ["not full fine-tuning, LoRA", "LoRA rather than full fine-tuning",
                "fine-tuning without touching all the weights"],
}
# ... including denials that come after the concept, in a clause of their own, or as "forget X"
NEGATED_AFTER = {
    "kc08_10": ["the KV cache is not what limits it", "KV cache? no, the activations",
                "the KV cache is wrong, it is the activations", "forget the KV cache, it is the activations",
                "the KV cache is not the limit", "KV cache - not really", "anything but the KV cache"],
    "kc08_16": ["they hang? no, they get an error", "they hang is wrong", "hang is not what happens"],
    "kc08_13": ["forget bucketing, just pad", "bucketing is not the answer", "bucketing won't help"],
    "kc08_04": ["waiting for the timer is not it", "waiting for the timer? no"],
}
# ... while more correct rephrasings (some with a harmless "not" elsewhere) keep passing.
PARAPHRASES = {
    "kc08_04": ["waiting for the delay timer to fire", "it waits: the window has not closed yet",
                "idle, waiting for max_delay_ms to pass"],
    "kc08_16": ["they hang, the exception is not delivered", "they are left waiting forever",
                "they wait forever because nobody sets their futures"],
    "kc08_10": ["the KV cache, not the activations", "key/value cache", "KV-cache memory"],
    "kc08_13": ["length bucketing, not plain padding", "bucketing by length"],
}
# rephrasings with a "not" after the concept that denies something else
PARAPHRASES_AFTER = {
    "kc08_10": ["the KV cache memory is what runs out", "the KV cache; activations are not the issue",
                "KV cache is the limit, not compute", "kv cache (not weights)"],
    "kc08_16": ["they hang because the error is not delivered", "they just hang, they do not get an error",
                "they hang and are never answered"],
    "kc08_13": ["bucketing, so padding is not wasted", "sort into length buckets, padding isn't needed much"],
    "kc08_04": ["waiting for the timer; the GPU is not busy",
                "the worker waits for the window to close, nothing is wrong"],
}
FORM_ERRORS = [("kc08_03", "d"), ("kc08_03", "b and c"), ("kc08_02", "maybe"),
               ("kc08_11", "lots"), ("kc08_01", ""), ("kc08_01", 42),
               ("kc08_01", " ".join(["batch delay"] * 20))]


@pytest.mark.parametrize("item, answer", [(i, a) for i, xs in ACCEPT.items() for a in xs])
def test_tolerant_answers_pass(item, answer):
    kc08.check(item, answer, hidden=True)


@pytest.mark.parametrize("item, answer", [(i, a) for i, xs in REJECT.items() for a in xs])
def test_wrong_answers_fail_with_a_neutral_message(item, answer):
    kc08.check(item, answer)  # the form is fine: the self-check passes
    with pytest.raises(AssertionError, match=rf"^{item}: not correct yet — (it does not name .*; )?re-read notebook"):
        kc08.check(item, answer, hidden=True)


@pytest.mark.parametrize("item, answer", [(i, a) for d in (NEGATED, NEGATED_AFTER)
                                          for i, xs in d.items() for a in xs])
def test_negated_answers_fail(item, answer):
    with pytest.raises(AssertionError, match=rf"^{item}: not correct yet"):
        kc08.check(item, answer, hidden=True)


@pytest.mark.parametrize("item, answer", [(i, a) for d in (PARAPHRASES, PARAPHRASES_AFTER)
                                          for i, xs in d.items() for a in xs])
def test_rephrasings_pass(item, answer):
    kc08.check(item, answer, hidden=True)


@pytest.mark.parametrize("item, answer", FORM_ERRORS)
def test_malformed_answers_say_what_form_is_expected(item, answer):
    with pytest.raises(AssertionError, match=rf"^{item}: (answer|write|keep)"):
        kc08.check(item, answer)


def test_every_objective_has_items_and_thirty_are_autograded():
    autograded = {i: spec.objective for i, spec in kc08.FORM.items()}
    assert len(autograded) >= 30
    decode = [i for i, spec in kc08.FORM.items() if re.search(r"notebooks? 0[56]", spec.where)]
    assert len(decode) >= 6, decode  # decoding an LLM: notebooks 05 and 06
    assert set(autograded.values()) == set(kc08.OBJECTIVES)
    nb = nbformat.read(SOLUTION, as_version=4)
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells]
    assert [i for i in ids if i and re.fullmatch(r"kc08_\d\d", i) and i not in kc08.FORM], \
        "there should be discussion items graded by hand"
    for c in nb.cells:  # each question names its objective
        if c.cell_type == "markdown" and c.source.startswith("### kc08_"):
            assert re.match(r"### kc08_\d\d · objective [1-6] · ", c.source)


def _solution_answers() -> dict:
    out = {}
    for c in nbformat.read(SOLUTION, as_version=4).cells:
        gid = c.metadata.get("nbgrader", {}).get("grade_id")
        if gid in kc08.FORM and c.cell_type == "code":
            ns = {}
            exec("\n".join(l for l in c.source.splitlines() if not l.startswith("#")), ns)
            out[gid] = ns[gid]
    return out


def test_the_key_covers_every_item_and_accepts_the_solution():
    key = answer_key.load(kc08.KEY_FILE)
    assert key is not None, "keys/kc08.json is missing"
    assert set(key) == set(kc08.FORM)
    for item, entry in key.items():
        assert entry["explain"].strip(), f"{item}: self-study needs an explanation"
        if kc08.FORM[item].kind == "short":
            assert entry["concepts"] and all(entry["concepts"]), item
        else:
            assert "answer" in entry, item
    answers = _solution_answers()
    assert set(answers) == set(kc08.FORM)
    for item, answer in answers.items():
        assert kc08.wrong_answer(item, answer, key) is None, (item, answer)


def test_answers_are_not_in_the_module_or_the_release():
    """The solution's answers appear neither in kc08.py nor in the released notebook."""
    module = Path(kc08.__file__).read_text()
    release = (ROOT / "notebooks" / SOLUTION.parent.name / SOLUTION.name).read_text()
    for gid, answer in _solution_answers().items():
        if isinstance(answer, str) and len(answer) > 3:
            for text in (module, release):
                assert answer.lower() not in text.lower(), f"{gid}'s answer is readable"
        assert f"{gid} = {answer!r}" not in release


def test_without_the_key_only_the_form_is_checked(tmp_path, monkeypatch):
    """A student has no keys/ folder: right and wrong answers of the right form get the
    same answer from every check the package offers."""
    monkeypatch.setenv(answer_key.DIR_ENV, str(tmp_path))
    for item, answer in (("kc08_03", "b"), ("kc08_03", "a"), ("kc08_11", 160), ("kc08_11", 7)):
        kc08.check(item, answer)
        with pytest.raises(AssertionError, match=rf"^{item}: the form is right; the content"):
            kc08.check(item, answer, hidden=True)


@pytest.mark.parametrize("answer", [type("Eq", (str,), {"__eq__": lambda s, o: True})("b"),
                                    type("I", (int,), {})(160), [1]])
def test_answers_must_be_plain_values(answer):
    with pytest.raises(AssertionError, match="plain str, bool or number"):
        kc08.check("kc08_11", answer)


def test_the_release_stub_is_not_attempted(monkeypatch, capsys):
    stub = NotImplementedError("kc08_05: write your answer here")
    monkeypatch.delenv("LAB_AUTOGRADE", raising=False)
    assert kc08.check_kc08_05(stub) is None
    assert capsys.readouterr().out.strip() == "kc08_05 not attempted yet"
    monkeypatch.setenv("LAB_AUTOGRADE", "1")
    with pytest.raises(AssertionError, match="^kc08_05: not attempted"):
        kc08.check_kc08_05(stub)


BAG = ("batch size, wait window, timeout, KV cache blocks, bucketing, hang, future, Triton "
       "server, full fine tuning")  # hostile/redteam3/kc_bag: the lab's vocabulary, no sentence


@pytest.mark.parametrize("item", [i for i, s in kc08.FORM.items() if s.kind == "short"])
def test_a_bag_of_lab_words_is_not_an_answer(item):
    """hostile/redteam3/kc_bag: one bag of the lab's words (16 of the 30 allowed) named every
    concept of every short item; it now goes to the trainer, never scores by itself."""
    key = answer_key.load(kc08.KEY_FILE)
    wrong, review = kc08.judge(item, BAG, key)
    assert wrong is None and review and "different questions at once" in review, (wrong, review)


def test_no_right_phrasing_is_taken_for_a_bag():
    """The bag rule never catches a right answer of the tables (they name at most 3 items'
    concepts)."""
    import json
    from pathlib import Path
    key = answer_key.load(kc08.KEY_FILE)
    root = Path(__file__).resolve().parents[2] / "keys"
    for name in ("kc08_phrasings.json", "kc08_heldout.json"):
        for item, kinds in json.loads((root / name).read_text()).items():
            if item.startswith("_"):
                continue
            for answer in kinds["right"]:
                assert kc08.judge(item, answer, key) == (None, None), (name, item, answer)
