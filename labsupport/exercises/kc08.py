"""Checks behind notebook 08, the knowledge check (items ``kc08_01`` … ``kc08_26``).

The answer key is not stored here: only salted hashes of normalised answers. A short
answer passes when, for each concept the item needs, one of its hashed synonyms
appears among the answer's word n-grams — so answers worded differently, in prose or as
the lab's parameter names, pass alike. ``check_kc08_NN(answer)`` only checks the form
of an answer (the self-check students see); ``hidden=True`` (the graded part) also
checks the content and, when wrong, says only where to re-read.

Trainers add a synonym by hashing it: ``python -m labsupport.exercises.kc08 kc08_01 "linger"``
prints the digest to add to that item's concept group.

The digests are salted with each item's id under the notebook's first number
(``salt_id``: ``kc08_05`` -> ``kc07_05``), so the key did not have to be re-hashed when
the notebook was renumbered.
"""
from __future__ import annotations

import hashlib
import re
import sys
from dataclasses import dataclass

SALT = "labsupport-kc07-v1"
SALT_PREFIX = "kc07_"  # the items' prefix in the salt (the notebook's first number)
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
class Item:
    kind: str                 # "mc" | "tf" | "short" | "number"
    objective: int            # 1..6, see OBJECTIVES
    key: tuple = ()           # hashes: one per accepted answer, or one group per concept
    options: str = ""         # mc: the allowed letters
    digits: int = 0           # number: decimals compared
    percent: bool = False     # number: "60 %" means 0.6


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


def salt_id(item: str) -> str:
    """The id ``item`` is salted with (``kc08_05`` -> ``kc07_05``)."""
    return SALT_PREFIX + item.split("_", 1)[1]


def digest(item: str, phrase: str) -> str:
    """The salted hash of one normalised answer or synonym phrase."""
    norm = " ".join(tokens(phrase)) if not re.fullmatch(r"-?[\d.]+", phrase) else phrase
    return hashlib.sha256(f"{SALT}|{salt_id(item)}|{norm}".encode()).hexdigest()[:20]


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


def _affirmed(item: str, answer: str) -> set[str]:
    """Digests of the answer's n-grams that no negation cue denies: one before them in
    their clause, one right after them, or a clause of denial words next."""
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
                    out.add(digest(item, " ".join(words[i:i + n])))
    return out


# --- form: what the self-check tells the student -------------------------------------

def _letter(item: str, spec: Item, answer) -> str:
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


def _number(item: str, spec: Item, answer) -> float:
    if isinstance(answer, bool):
        answer = None
    if isinstance(answer, (int, float)):
        return float(answer)
    if isinstance(answer, str):
        m = re.search(r"-?\d+(?:\.\d+)?", answer.replace(",", "."))
        if m:
            value = float(m.group(0))
            return value / 100 if spec.percent and "%" in answer[m.end():] else value
    hint = " (a fraction like 0.25, or a string like '25 %')" if spec.percent else ""
    raise AssertionError(f"{item}: answer with a number{hint} (got {answer!r})")


# --- content: the graded part ----------------------------------------------------------

def _correct(item: str, spec: Item, answer) -> bool:
    if spec.kind == "mc":
        return digest(item, _letter(item, spec, answer)) in spec.key
    if spec.kind == "tf":
        return digest(item, _truth(item, answer)) in spec.key
    if spec.kind == "number":
        value = round(_number(item, spec, answer), spec.digits)
        return digest(item, f"{value:.{spec.digits}f}") in spec.key
    _words(item, answer)  # the form: a short string
    grams = _affirmed(item, answer)
    return all(grams & set(group) for group in spec.key)


def check(item: str, answer, hidden: bool = False) -> None:
    """Check ``answer`` for ``item``: its form always, its content when ``hidden``."""
    __tracebackhide__ = True  # pytest shows only the caller's line
    spec = KEY[item]
    {"mc": lambda: _letter(item, spec, answer), "tf": lambda: _truth(item, answer),
     "short": lambda: _words(item, answer),
     "number": lambda: _number(item, spec, answer)}[spec.kind]()
    if hidden and not _correct(item, spec, answer):
        raise AssertionError(f"{item}: not correct yet — re-read {WHERE[spec.objective]}.")


# The key: salted hashes only (generated; see the module docstring to add synonyms).
KEY: dict[str, Item] = {}  # filled below

# @generated-key-begin
KEY["kc08_01"] = Item("short", 1, (
    ('2453ce1cb5c868aa103d', '6e72eb75d42e799882e7', '8948449f5424fbb439f6', 'c34cd0d4a96dfd263e77', 'cf54522964dda6216d41'),
    ('191bb97d745a8a66874a', '2238fdc4a084ee0cd4dc', '2b53c799aa5c8703ea94', '327a6b1c6b55e0123e45', '52ffef5fcb81dbc92601', '6d31a022960bc45f0679', '71df7135579f58e9fccc', '7cd75a7f0540d53535ee', 'a2a8224e9cb1705c35e8', 'f0a5009fe3bfc0907620', 'fbc1645a405f27206eaa'),
))
KEY["kc08_02"] = Item("tf", 2, ('4cda581f8c8b5fea3e71',))
KEY["kc08_03"] = Item("mc", 4, ('13cc034ffc43ce75e9f3',), options="abc")
KEY["kc08_04"] = Item("short", 6, (
    ('0527dbb9fab458ac0dc0', '1ea120ba820080b5c980', '37d06f64d7369df26be0', '3ec6433747ea4ad8ad2d', '4caacfb02bb58b1a286f', '5948090c770a86dff912', '6596fcd1a796893a93f2', '7c474a89b8652c20e22b', '80182897dfe61b477856', '8f5694a5127b14c68c95', '999be426857e31bc8270', 'c68467e5a231f2596650', 'e501917fdf3f73716b69', 'e8988c5f58ecb1eb456a'),
))
KEY["kc08_05"] = Item("tf", 3, ('9660f4e95cf72f31ed9a',))
KEY["kc08_06"] = Item("mc", 2, ('b670f0258b4af352691f',), options="abc")
KEY["kc08_07"] = Item("short", 1, (
    ('02863c7b0a51fa2f41af', '0570e4ccbb4de6864f33', '06f82ec75dbdcd615c9d', '1465fa9defa1d08f7aa3', '38b217381ba6adfea3ff', '44e66ae545a692361f93', '5f2f24f31b8370e71800', '6d777ef2df034c5ba390', '7dd3e2aa58a3f984170e', '817e3e4952229427b10e', '89fe49e2b493e0157069', '9becb31339109d8fc82d', 'acb252051d54f8e9f49f', 'b04c0ecc930dbc78a25d', 'bd6312232a31baa37790', 'd344d9d78cca98d22aa8', 'f891af051357c131e310', 'fb515989ffe79226404a'),
))
KEY["kc08_08"] = Item("tf", 4, ('e9c7584f2226ae8f0ca5',))
KEY["kc08_09"] = Item("mc", 1, ('e1b3fdde055ad35e8bed',), options="abc")
KEY["kc08_10"] = Item("short", 2, (
    ('4264dc550a95ab8c374c', 'a168c910bc2b99752de5', 'a1ca63d953a781cc76a2', 'aa76491e256c7a83a4d7', 'b36a393632068ed98668', 'b684d946c0a61125542a', 'bcc4f99b6bbd255306c0', 'de1f465059aa684a0c24', 'f3f54b3e60379ff50547'),
))
KEY["kc08_11"] = Item("number", 3, ('13e972c36ed27d5b211e',), digits=0)
KEY["kc08_12"] = Item("number", 3, ('c9f224c52469b46bdc43',), digits=2, percent=True)
KEY["kc08_13"] = Item("short", 3, (
    ('3d339d218ad5e5979eb9', '48eb64c290fc236f13e0', 'aefea1204b26833f348d', 'ce161810e085ee96a237', 'de547fac3c2c288ca04c', 'e55315ae2a4a928ac799', 'f10cf3c7fa9b6af876e0'),
))
KEY["kc08_14"] = Item("mc", 3, ('f032ecea03bcbc4e2411',), options="abc")
KEY["kc08_15"] = Item("mc", 5, ('cbcf23315d3643c060b0',), options="abc")
KEY["kc08_16"] = Item("short", 5, (
    ('01c91a7477c9361c4075', '5d6ead1ea759b0dd6193', 'e5f4e7f70c2f3b2afc80', '102e02dd1f91d20441a2', '49b0882e19ab7dcdbd71', 'fa8d4fbd0dc7179fbb36', '659e8ece620a469f5f25', '1564da25413b2cb6f90f', 'b41d2b9f7ee1c334108b', 'c69ae6045cb2d0d4d3e7', 'ffe51f6cdeecb2d796c8', '62cd56dc8de244efb797', '60e4056948e7ff614c99', '6868721327d36d07f9c6', '7e61ca9276b652b5d76f', 'ad64e0462af7e32cf18e', 'b0c68137962be47cf41a', 'e4d101a813915e026f9e', 'f4c11a9a3bd677a7b5ad'),
))
KEY["kc08_17"] = Item("tf", 5, ('8596ee3b59c3fb7f8b7f',))
KEY["kc08_18"] = Item("number", 6, ('353f71b24c94b6407779',), digits=0)
KEY["kc08_19"] = Item("mc", 6, ('cb80238278748c95d628',), options="abc")
KEY["kc08_20"] = Item("number", 6, ('722717deb43045f44a5f',), digits=2, percent=True)
KEY["kc08_21"] = Item("mc", 4, ('e916dfc533cfc185e827',), options="abc")
KEY["kc08_22"] = Item("tf", 6, ('487feaeb72e5b22a7d1b',))
KEY["kc08_23"] = Item("mc", 2, ('715e96a013665e827ffa',), options="abc")
KEY["kc08_24"] = Item("short", 5, (
    ('6ee32b2e1b5a5d844f18', '960b5728f08df916db8a'),
))
# @generated-key-end


def _make_check(item: str):
    def check_item(answer, hidden: bool = False) -> None:
        __tracebackhide__ = True
        check(item, answer, hidden)
    check_item.__name__ = check_item.__qualname__ = f"check_{item}"
    check_item.__doc__ = (f"{item} (objective {KEY[item].objective}: "
                          f"{OBJECTIVES[KEY[item].objective]}).")
    return check_item


for _item in KEY:
    globals()[f"check_{_item}"] = _make_check(_item)
__all__ = [f"check_{i}" for i in KEY]
TARGETS = {i: i for i in KEY}  # exercise id -> the variable the student's answer cell sets


if __name__ == "__main__":  # python -m labsupport.exercises.kc08 kc08_01 "phrase"
    print(digest(sys.argv[1], sys.argv[2]))
