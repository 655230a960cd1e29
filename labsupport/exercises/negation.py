"""Whether a short answer affirms a phrase or names it only to deny it, judged by clause and
scope (no fixed window of words).

An answer is cut into clauses at punctuation and at contrast or cause words ("but",
"because", "whereas", ...). A negation cue ("not", "n't", "never", "without", "rather
than", "instead of", ...) denies what follows it up to the end of its clause, so in "not X,
it is Y" and "not X but Y" only X is denied, and in "Y rather than X" only X. Two cues over
one phrase cancel ("it is not true that they don't hang"); "not only X" is no denial. A
phrase is also denied by a denial right after it in its clause ("X is not the limit", "X
won't help", "X is wrong"), and a question is denied by the clause that answers it ("X?
They don't, ...", "X? No, ..."). What the rule cannot resolve — a hedge over the phrase
("hardly X", "not sure it is X"), three or more cues, a question answered by a clause with a
negation further in — is *uncertain*: a person decides.

No NLP library is used: negation-scope tools (negspacy/NegEx on spaCy) need a model of
hundreds of MB for what, in answers of at most 30 words, a clause splitter does; it is kept
testable against the grader's tables of real phrasings.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

AFFIRMED, DENIED, UNCERTAIN = "affirmed", "denied", "uncertain"

CUES = {"not", "no", "never", "nothing", "none", "nobody", "neither", "nor", "without",
        "cannot", "forget", "except", "excluding", "unlike", "ignore", "nowhere"}
PAIRED_CUES = {("rather", "than"), ("instead", "of"), ("far", "from"), ("no", "longer")}
NOT_A_DENIAL = {"only", "just", "merely", "simply", "solely"}  # "not only X" affirms X
HEDGES = {"hardly", "barely", "scarcely", "seldom", "rarely", "unlikely", "doubt",
          "doubtful", "maybe", "perhaps", "probably", "possibly"}
HEDGED_NOT = {"sure", "necessarily", "always", "exactly", "quite", "entirely", "certain",
              "really"}  # "not sure X" leaves X open
INTERJECTION_NEXT = {"they", "it", "its", "that", "this", "i", "we", "you", "he", "she",
                     "there", "the", "those", "these"}  # "no they hang": "no" answers
POST_DENIALS = CUES | {"wrong", "false", "incorrect", "irrelevant", "myth", "nope", "nah"}
AUX = {"is", "are", "was", "were", "be", "been", "s", "do", "does", "did", "will", "would",
       "can", "could", "should", "has", "have", "had", "really", "actually", "simply",
       "definitely", "certainly", "totally", "completely", "wo", "ca", "sure", "re"}
TAIL = {"really", "at", "all", "true", "relevant", "it", "so", "the", "case", "right",
        "correct", "the", "answer", "that", "involved", "used", "needed", "what", "happens"}
DENIAL_OPENERS = {"no", "nope", "nah", "wrong", "false", "incorrect"}
CLAUSE_BREAK = re.compile(r"[;:,.!()\[\]]|\s[-–—]+\s|\b(?:but|so|because|since|whereas|while|"
                          r"although|though|yet|hence|therefore|then|as|instead(?!\s+of))\b")
ALL_BUT = re.compile(r"\b(?:anything|everything|all)\s+but\b")  # "anything but X": not X
DENIAL_ONLY = {"no", "nope", "nah", "not", "really", "at", "all", "wrong", "false", "incorrect",
               "that", "is", "s", "it", "never", "definitely", "of", "course"}
CONTRACTIONS = [(re.compile(r"\bcan['’]?t\b"), "can not"), (re.compile(r"\bwon['’]?t\b"), "will not"),
                (re.compile(r"\b(\w+)n['’]t\b"), r"\1 not"),
                (re.compile(r"\b(do|does|did|is|are|was|were|has|have|had|would|should|could)nt\b"),
                 r"\1 not")]


def _fold(word: str) -> str:
    """A word reduced for matching: plural and -ing/-ed endings folded (both sides of a
    comparison are folded alike, so only consistency matters)."""
    if len(word) > 3 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 4 and word.endswith(("ches", "shes", "xes", "sses")):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for end in ("ing", "ed"):
        if word.endswith(end) and len(word) - len(end) >= 3:
            stem = word[:-len(end)]
            if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
                stem = stem[:-1]  # sitting -> sit, padding -> pad
            return stem
    return word


def words(text: str) -> list[str]:
    """Lower-case words, contractions opened ("don't" -> "do not")."""
    text = text.lower()
    for pattern, repl in CONTRACTIONS:
        text = pattern.sub(repl, text)
    return re.findall(r"[a-z0-9]+", text)


def folded(text: str) -> list[str]:
    """``words`` as they are matched (``_fold``)."""
    return [_fold(w) for w in words(text)]


@dataclass(frozen=True)
class Clause:
    words: list[str]        # as written (lower case)
    question: bool          # ended by "?"


def clauses(text: str) -> list[Clause]:
    """The answer's clauses, in order; a question mark ends one and marks it."""
    out = []
    for sentence in re.split(r"(?<=\?)", ALL_BUT.sub(" not ", text.lower())):
        question = sentence.rstrip().endswith("?")
        parts = [p for p in CLAUSE_BREAK.split(sentence.replace("?", " ")) if p is not None]
        parts = [words(p) for p in parts]
        parts = [p for p in parts if p]
        for k, p in enumerate(parts):
            out.append(Clause(p, question and k == len(parts) - 1))
    return out


def _cues_before(ws: list[str], start: int) -> tuple[int, bool]:
    """(number of negation cues in ``ws[:start]`` that scope over ``start``, whether a hedge
    does)."""
    count, hedge = 0, False
    for j in range(start):
        w, nxt = ws[j], ws[j + 1] if j + 1 < len(ws) else ""
        if (w, nxt) in PAIRED_CUES:
            count += 1
        elif w == "not" and nxt in HEDGED_NOT:
            hedge = True
        elif w in CUES and not (w == "not" and nxt in NOT_A_DENIAL) and \
                not (w in {"no", "nope"} and (j == 0 and nxt in INTERJECTION_NEXT)):
            count += 1
        elif w in HEDGES:
            hedge = True
    return count, hedge


def _denied_after(ws: list[str], end: int) -> str | None:
    """A denial after the phrase in its clause: DENIED for "X is not ...", "X won't help",
    "X is wrong", "X for the timer is not it"; UNCERTAIN for a verb's denial further on
    that may be about something else ("X for the batch is not full"); else None."""
    for j in range(end, len(ws)):
        if ws[j] not in POST_DENIALS:
            continue
        if ws[j] == "not" and j + 1 < len(ws) and ws[j + 1] in NOT_A_DENIAL:
            return None
        between, after = ws[end:j], ws[j + 1:]
        tail = all(w in TAIL for w in after)
        if all(w in AUX for w in between):
            return DENIED if between or tail else None
        if j > end and ws[j - 1] in AUX:  # "X ... is not ..."
            return DENIED if tail else UNCERTAIN
        return None
    return None


def _answers_denial(nxt: Clause | None, question: bool) -> str | None:
    """How the next clause answers this one: DENIED ("X? no, ...", "X? They don't", "X -
    not really"), UNCERTAIN (after a question, a negation or hedge further in), or None."""
    if nxt is None:
        return None
    ws = nxt.words
    if all(w in DENIAL_ONLY for w in ws) and set(ws) & POST_DENIALS:
        return DENIED
    if not question:
        return None
    if ws[0] in DENIAL_OPENERS or "not" in ws[:3] or "never" in ws[:3]:
        return DENIED
    if any(w in CUES or w in HEDGES for w in ws):
        return UNCERTAIN
    return None


def status(text: str, phrases: list[list[str]]) -> tuple[str | None, str]:
    """How ``text`` treats the phrases (each a ``folded`` word list): AFFIRMED when one
    occurrence is affirmed, else DENIED or UNCERTAIN when one is, else None (absent); with
    the clause where it was decided, as written."""
    found: dict[str, str] = {}
    cs = clauses(text)
    for k, clause in enumerate(cs):
        ws, fw = clause.words, [_fold(w) for w in clause.words]
        for phrase in phrases:
            n = len(phrase)
            for i in range(len(fw) - n + 1):
                if fw[i:i + n] != phrase:
                    continue
                count, hedge = _cues_before(ws, i)
                after = _denied_after(ws, i + n)
                count += after == DENIED
                hedge = hedge or after == UNCERTAIN
                if count == 0:
                    answer = _answers_denial(cs[k + 1] if k + 1 < len(cs) else None,
                                             clause.question)
                    count += answer == DENIED
                    hedge = hedge or answer == UNCERTAIN
                if hedge or count >= 3:
                    verdict = UNCERTAIN
                else:
                    verdict = DENIED if count % 2 else AFFIRMED
                found.setdefault(verdict, " ".join(ws))
    for verdict in (AFFIRMED, DENIED, UNCERTAIN):
        if verdict in found:
            return verdict, found[verdict]
    return None, ""
