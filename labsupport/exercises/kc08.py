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
phrases appears among the answer's word n-grams and no negation denies it — so answers
worded differently, in prose or as the lab's parameter names, pass alike.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from . import answer_key
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


def _plural(word: str) -> str:
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def tokens(text: str) -> list[str]:
    """Lower-case words, split at anything not a letter or digit, plurals folded."""
    return [_plural(w) for w in re.findall(r"[a-z0-9]+", text.lower())]


# A negation cue denies what follows it up to the end of its clause ("not the KV cache but
# the activations": the KV cache is denied, the activations are not). A synonym phrase that
# itself starts with the cue ("never resolved") is the concept, not its denial. A denial can
# also come after the concept: "the KV cache is not what limits it", "bucketing won't help",
# "hang is wrong", or a clause of its own ("KV cache? no, ...").
NEGATIONS = {"not", "no", "never", "nothing", "none", "nobody", "neither", "nor", "without",
             "instead", "rather", "t", "cannot", "dont", "doesnt", "isnt", "arent", "wont",
             "cant", "didnt", "wasnt", "werent",  # "t": what is left of n't after splitting
             "forget", "except", "excluding", "unlike", "ignore"}
POST_DENIALS = NEGATIONS | {"wrong", "false", "incorrect", "irrelevant", "myth", "nope"}
# words that may stand between a concept and a denial that comes after it ("X is not")
AUX = {"is", "are", "was", "were", "be", "been", "s", "do", "doe", "does", "did", "will",
       "would", "won", "ca", "can", "could", "should", "has", "have", "had", "really",
       "actually", "simply", "definitely", "certainly", "totally", "completely"}
TAIL = {"really", "at", "all", "true", "relevant", "it", "so", "the", "case", "right"}
DENIAL_CLAUSE = {"no", "nope", "not", "wrong", "false", "incorrect", "really", "nah", "at",
                 "all", "that", "s", "is"}
CLAUSE_END = re.compile(r"[;:,.!?()\[\]]|\b(?:but|so|because|since|whereas|while|although|"
                        r"though|yet)\b", re.I)
ALL_BUT = re.compile(r"\b(?:anything|everything|all|nothing)\s+but\b", re.I)


def _denied_after(words: list[str], end: int) -> bool:
    """Whether a denial follows the words before ``end`` in their clause ("X is not ...").
    Callers also try ``end`` a few words on, so "KV" in "the KV cache is not" is denied."""
    for j in range(end, len(words)):
        if words[j] in POST_DENIALS:
            between, after = words[end:j], words[j + 1:]
            return bool(between) or all(w in TAIL for w in after)
        if words[j] not in AUX:
            return False
    return False


def affirmed(answer: str) -> set[str]:
    """The answer's word n-grams (n ≤ 3, normalised by ``tokens``) that no negation cue
    denies: one before them in their clause, one right after them, or a clause of denial
    words next."""
    out = set()
    clauses = [tokens(c or "") for c in CLAUSE_END.split(ALL_BUT.sub(" not ", answer))]
    clauses = [c for c in clauses if c]
    for k, words in enumerate(clauses):
        nxt = clauses[k + 1] if k + 1 < len(clauses) else []
        if nxt and all(w in DENIAL_CLAUSE for w in nxt) and set(nxt) & POST_DENIALS:
            continue  # "KV cache? no": the whole clause is denied
        cues = [j for j, w in enumerate(words) if w in NEGATIONS]
        for n in range(1, 4):
            for i in range(len(words) - n + 1):
                denied_after = any(_denied_after(words, i + n + k) for k in range(4))
                if not any(j < i for j in cues) and not denied_after:
                    out.add(" ".join(words[i:i + n]))
    return out


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


def correct(item: str, answer, entry: dict) -> bool:
    """Whether ``answer`` is right for ``item`` by its key ``entry`` (``keys/kc08.json``).
    A malformed answer raises the form's AssertionError."""
    spec = FORM[item]
    answer = _plain_answer(item, answer)
    if spec.kind == "mc":
        return _letter(item, spec, answer) == str(entry["answer"]).lower()
    if spec.kind == "tf":
        return _truth(item, answer) == str(bool(entry["answer"])).lower()
    if spec.kind == "number":
        d = spec.digits
        got = round(_number(item, spec, answer), d)
        return f"{got:.{d}f}" == f"{float(entry['answer']):.{d}f}"
    _words(item, answer)  # the form: a short string
    grams = affirmed(answer)
    return all(grams & {" ".join(tokens(p)) for p in group} for group in entry["concepts"])


def wrong_answer(item: str, answer, key: dict) -> str | None:
    """None when ``answer`` is right by ``key``, else the message a student may read: where
    to re-read (never the answer). Used by the trusted pass, in the grader's process."""
    if item not in key:
        return f"{item}: the answer key has no entry for this item; grade it by hand"
    try:
        ok = correct(item, answer, key[item])
    except AssertionError as err:
        return str(err)
    spec = FORM[item]
    return None if ok else f"{item}: not correct yet — re-read {spec.where or WHERE[spec.objective]}."


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
    message = wrong_answer(item, answer, key)
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
TARGETS = {i: i for i in FORM}  # exercise id -> the variable the student's answer cell sets
