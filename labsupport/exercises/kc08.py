"""Checks behind notebook 08, the knowledge check (items ``kc08_01`` … ``kc08_38``;
25 and 26 are discussions, marked by hand).

This module holds no answer. ``FORM`` says what form each item's answer takes (a letter, a
truth value, a number, a few words); ``check_kc08_NN(answer)`` checks only that form (the
self-check students see). The content is judged against the answer key, which is
grader-only material (``keys/kc08.json``, read through ``answer_key``): by the trusted
pass of ``labgrader autograde``, in the grader's own process (``content``), and in
self-study mode (``kc08_feedback``; ``check_kc08_NN(answer, hidden=True)``), which reveal
the answers to whoever has the key.

A short answer is right when, for each concept the key lists for it, one of that concept's
phrases appears in the answer and is affirmed there, judged by clause and scope
(``negation``): a concept named only to be denied ("not X, it is Y", "Y rather than X",
"X? They don't") does not count; one the rule cannot resolve goes to the trainer's review
(``judge``). The message names the concept that was missing or denied, by the key's label.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from . import answer_key, negation
from .guard import exercise_check
from .plain import describe

KEY_FILE = "kc08"  # keys/kc08.json: the key the content is judged against
MAX_WORDS = 30  # short answers are short; a word list of every concept cannot pass
OBJECTIVES = {  # the lesson's six learning objectives, in short
    1: "what dynamic (windowed) batching is, and its two knobs",
    2: "dynamic against continuous batching for LLM decoding",
    3: "padding and input shapes when requests differ in length",
    4: "which batching for embeddings, classifiers and chat models",
    5: "writing a max-wait micro-batcher in Python",
    6: "latency SLOs against throughput under bursty traffic",
}
WHERE = {  # objective -> what to re-read
    1: "notebook 02 (the micro-batcher and its two knobs)",
    2: "notebooks 05 and 06 (decode basics; request-level against iteration-level decoding)",
    3: "notebook 03 (padding and shapes)",
    4: "notebooks 04 and 07 (when dynamic batching pays; the hybrid stack)",
    5: "notebook 02 (the lesson's batcher and its flaws)",
    6: "notebooks 01 and 02 (latency against load; finding the knee)",
}


@dataclass(frozen=True)
class Form:
    kind: str                 # "mc" | "tf" | "short" | "number"
    objective: int            # 1..6, see OBJECTIVES
    options: str = ""         # mc: the allowed letters
    digits: int = 0           # number: decimals compared
    percent: bool = False     # number: "60 %" means 0.6
    where: str = ""           # what to re-read, when narrower than the objective's WHERE


FORM: dict[str, Form] = {
    "kc08_01": Form("short", 1), "kc08_02": Form("tf", 2), "kc08_03": Form("mc", 4, "abc"),
    "kc08_04": Form("short", 6), "kc08_05": Form("tf", 3), "kc08_06": Form("mc", 2, "abc"),
    "kc08_07": Form("short", 1), "kc08_08": Form("tf", 4), "kc08_09": Form("mc", 1, "abc"),
    "kc08_10": Form("short", 2), "kc08_11": Form("number", 3, digits=0),
    "kc08_12": Form("number", 3, digits=2, percent=True), "kc08_13": Form("short", 3),
    "kc08_14": Form("mc", 3, "abc"), "kc08_15": Form("mc", 5, "abc"),
    "kc08_16": Form("short", 5), "kc08_17": Form("tf", 5),
    "kc08_18": Form("number", 6, digits=0), "kc08_19": Form("mc", 6, "abc"),
    "kc08_20": Form("number", 6, digits=2, percent=True), "kc08_21": Form("mc", 4, "abc"),
    "kc08_22": Form("tf", 6), "kc08_23": Form("mc", 2, "abc"), "kc08_24": Form("short", 5),
    # decoding an LLM: notebooks 05 and 06
    "kc08_27": Form("mc", 6, "abc", where="notebook 05 (the metrics: TTFT and TPOT)"),
    "kc08_28": Form("number", 2, digits=0, where="notebook 05 (what the KV cache holds; ex05_4)"),
    "kc08_29": Form("mc", 2, "abcd", where="notebook 05 (why batching decode pays: the roofline)"),
    "kc08_30": Form("mc", 6, "abc",
                    where="notebook 06 (chunked prefill and its TTFT/TPOT trade-off)"),
    "kc08_31": Form("mc", 2, "abcd", where="notebook 06 (prefix caching; ex06_10)"),
    "kc08_32": Form("mc", 2, "abcd", where="notebook 06 (paged KV and preemption; ex06_4)"),
    "kc08_33": Form("tf", 3, where="notebook 06 (the ragged batch and its mask; ex06_9)"),
    "kc08_34": Form("number", 2, digits=0, where="notebook 05 (the KV budget; ex05_4)"),
    "kc08_35": Form("mc", 2, "abc",
                    where="notebook 06 (answers end before their cap: reserve or on demand?)"),
    "kc08_37": Form("mc", 6, "abc", where="notebooks 05 and 06 (goodput against throughput; "
                    "ex06_6)"),
    "kc08_38": Form("mc", 2, "abc", where="notebook 06 (where continuous batching does not win)"),
    # the lesson's last item: where the course goes next
    "kc08_36": Form("short", 1, where="notebook 00 (where this lab sits in the course)"),
}


def tokens(text: str) -> list[str]:
    """Lower-case words as they are matched (plurals and -ing/-ed folded, ``negation``)."""
    return negation.folded(text)


# --- form: what the self-check tells the student -------------------------------------

def _letter(item: str, spec: Form, answer) -> str:
    letters = ", ".join(spec.options)
    if isinstance(answer, str):
        m = re.fullmatch(r"\s*\(?\s*([a-zA-Z])\s*[).]?\s*", answer)
        if m and m.group(1).lower() in spec.options:
            return m.group(1).lower()
    raise AssertionError(f"{item}: answer with one letter as a string: one of {letters} "
                         f"(got {answer!r})")


def _truth(item: str, answer) -> str:
    if isinstance(answer, bool):
        return str(answer).lower()
    if isinstance(answer, str) and answer.strip().lower() in {"true", "false", "t", "f"}:
        return "true" if answer.strip().lower() in {"true", "t"} else "false"
    raise AssertionError(f"{item}: answer True or False (got {answer!r})")


def _words(item: str, answer) -> list[str]:
    if not isinstance(answer, str) or not tokens(answer):
        raise AssertionError(f"{item}: write your short answer as a string, e.g. "
                             f'{item} = "…" (got {answer!r})')
    words = tokens(answer)
    if len(words) > MAX_WORDS:
        raise AssertionError(f"{item}: keep it short — at most {MAX_WORDS} words "
                             f"(you wrote {len(words)})")
    return words


THOUSANDS = re.compile(r"(?<=\d)[,_ ](?=\d{3}(?!\d))")  # a group separator in a whole number


def _number(item: str, spec: Form, answer) -> float:
    if isinstance(answer, bool):
        answer = None
    if isinstance(answer, (int, float)):
        return float(answer)
    if isinstance(answer, str):
        text = answer if spec.digits else THOUSANDS.sub("", answer)  # "57,344" is 57344
        m = re.search(r"-?\d+(?:\.\d+)?", text.replace(",", "."))
        if m:
            value = float(m.group(0))
            return value / 100 if spec.percent and "%" in answer[m.end():] else value
    hint = " (a fraction like 0.25, or a string like '25 %')" if spec.percent else ""
    raise AssertionError(f"{item}: answer with a number{hint} (got {answer!r})")


# --- content: judged against the grader's key ------------------------------------------

def _plain_answer(item: str, answer):
    """Answers are plain values: a subclass of str or int could answer every comparison."""
    if type(answer) not in (str, bool, int, float):
        raise AssertionError(f"{item}: answer with a plain str, bool or number, not "
                             f"{describe(answer)}")
    return answer


@dataclass(frozen=True)
class Verdict:
    right: bool | None        # None: uncertain, a person decides
    why: str = ""             # what was missing, denied or unresolved ("" when right)


def _label(entry: dict, k: int) -> str:
    labels = entry.get("labels") or []
    return labels[k] if k < len(labels) else f"concept {k + 1} of {len(entry['concepts'])}"


def assess(item: str, answer, entry: dict) -> Verdict:
    """How ``answer`` stands for ``item`` by its key ``entry`` (``keys/kc08.json``). A
    malformed answer raises the form's AssertionError."""
    spec = FORM[item]
    answer = _plain_answer(item, answer)
    if spec.kind == "mc":
        return Verdict(_letter(item, spec, answer) == str(entry["answer"]).lower())
    if spec.kind == "tf":
        return Verdict(_truth(item, answer) == str(bool(entry["answer"])).lower())
    if spec.kind == "number":
        d = spec.digits
        got = round(_number(item, spec, answer), d)
        return Verdict(f"{got:.{d}f}" == f"{float(entry['answer']):.{d}f}")
    _words(item, answer)  # the form: a short string
    unsure = []
    for k, group in enumerate(entry["concepts"]):
        found, clause = negation.status(answer, [tokens(p) for p in group])
        if found is None:
            return Verdict(False, f"it does not name {_label(entry, k)}")
        if found == negation.DENIED:
            return Verdict(False, f"it names {_label(entry, k)} only to deny it (“{clause}”)")
        if found == negation.UNCERTAIN:
            unsure.append(f"{_label(entry, k)} sits under a negation or hedge the rule cannot "
                          f"resolve (“{clause}”)")
    return Verdict(None, "; ".join(unsure)) if unsure else Verdict(True)


def correct(item: str, answer, entry: dict) -> bool:
    """Whether ``answer`` is surely right for ``item`` (uncertain is not)."""
    return assess(item, answer, entry).right is True


# An answer that names every concept of this many short questions is a list of the lab's
# words, not an answer: no right phrasing in keys/kc08_phrasings.json or the held-out set
# names more than 3 (a few honest ones name 2 or 3: kc08_01's knobs are kc08_04's wait).
BAG_ITEMS = 4


def _names_every_concept(item: str, answer, entry: dict) -> bool:
    try:
        return bool(assess(item, answer, entry).right)
    except AssertionError:
        return False


def judge(item: str, answer, key: dict) -> tuple[str | None, str | None]:
    """``(wrong, review)``: the message a student may read when ``answer`` is wrong (where to
    re-read, and which concept was missing or denied), or why a trainer must read it
    (uncertain, or no key); both None when it is right. Used by the trusted pass, in the
    grader's process."""
    if item not in key:
        return None, f"{item}: the answer key has no entry for this item; grade it by hand"
    try:
        v = assess(item, answer, key[item])
    except AssertionError as err:
        return str(err), None
    spec = FORM[item]
    if v.right is None:
        return None, f"{item}: sent to your trainer to read: {v.why}"
    if v.right and spec.kind == "short":
        also = [j for j, s in FORM.items() if s.kind == "short" and j != item and j in key
                and _names_every_concept(j, answer, key[j])]
        if len(also) + 1 >= BAG_ITEMS:
            return None, (f"{item}: sent to your trainer to read: it names every concept of "
                          f"{len(also) + 1} different questions at once (a list of the lab's "
                          "words, not an answer to this one)")
    if v.right:
        return None, None
    why = f"{v.why}; " if v.why else ""
    return f"{item}: not correct yet — {why}re-read {spec.where or WHERE[spec.objective]}.", None


def wrong_answer(item: str, answer, key: dict) -> str | None:
    """None when ``answer`` is right by ``key``, else the message a student may read (an
    uncertain answer's says a trainer reads it)."""
    wrong, review = judge(item, answer, key)
    return wrong or review


def check(item: str, answer, hidden: bool = False) -> None:
    """Check ``answer`` for ``item``: its form always; its content with ``hidden``, which
    needs the grader's key (self-study mode: it is there only for whoever has
    ``keys/``)."""
    __tracebackhide__ = True  # pytest shows only the caller's line
    spec = FORM[item]
    _plain_answer(item, answer)
    {"mc": lambda: _letter(item, spec, answer), "tf": lambda: _truth(item, answer),
     "short": lambda: _words(item, answer),
     "number": lambda: _number(item, spec, answer)}[spec.kind]()
    if not hidden:
        return
    key = answer_key.load(KEY_FILE)
    if key is None:
        raise AssertionError(f"{item}: the form is right; the content is checked against the "
                             "answer key, which only your trainer (or self-study mode, with "
                             "the course's keys/ folder) has")
    message = wrong_answer(item, answer, key)  # uncertain: not a pass either
    if message:
        raise AssertionError(message)


def _make_check(item: str):
    def check_item(answer, hidden: bool = False) -> None:
        __tracebackhide__ = True
        check(item, answer, hidden)
    check_item.__name__ = check_item.__qualname__ = f"check_{item}"
    check_item.__doc__ = (f"{item} (objective {FORM[item].objective}: "
                          f"{OBJECTIVES[FORM[item].objective]}).")
    return exercise_check(item)(check_item)


for _item in FORM:
    globals()[f"check_{_item}"] = _make_check(_item)
__all__ = [f"check_{i}" for i in FORM]
