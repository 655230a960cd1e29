"""Feedback for students working alone on notebook 08: after they *commit* their answers,
each item says whether the committed answer is right and explains the expected one.

A commit is final: ``review(globals(), commit=True)`` stores the answers it sees in a small
state file, and later feedback is always about those committed answers (changing an answer
afterwards does not change its verdict). The explanations are stored sealed (XOR with a
salted hash stream, base64), so neither this module nor the released notebook shows an
answer in plain text. It only keeps honest students honest: the seal is not encryption.
Grading is unaffected (nbgrader's hidden tests decide the marks). The seals are keyed by ``kc08.salt_id``, like the answer key.
"""
from __future__ import annotations

import ast
import base64
import hashlib
import json
import os
from pathlib import Path

from . import kc08

SALT = "labsupport-kc07-explain-v1"
STATE_ENV = "LABSUPPORT_KC07_STATE"  # where commits are kept


def _stream(item: str, n: int) -> bytes:
    out, k = b"", 0
    while len(out) < n:
        out += hashlib.sha256(f"{SALT}|{kc08.salt_id(item)}|{k}".encode()).digest()
        k += 1
    return out[:n]


def seal(item: str, text: str) -> str:
    """The sealed form of an explanation (trainers: add one with this)."""
    raw = text.encode()
    return base64.b64encode(bytes(a ^ b for a, b in zip(raw, _stream(item, len(raw))))).decode()


def unseal(item: str, blob: str) -> str:
    raw = base64.b64decode(blob)
    return bytes(a ^ b for a, b in zip(raw, _stream(item, len(raw)))).decode()


SEALED = {  # item -> sealed explanation of the expected answer
    "kc08_01": "UHCXYtKiN+8NMenSxtvvx8mm0wAsmGsZfY1H0xh89jJrX+VAbfG/PnU97iEg2KSfzxtQf4k+PMsG+d8KJVHDCIN6oG/3nhVnC/qos9E6oXWe8DBoPj1ecYd8Iy2F7YvZ77HLUgyvyQ4g8oI80tmjwXlyAieL5fX1VsRwGPHamCxB+oMb2MRp36ozl1NUqmUC",
    "kc08_02": "FiJMO/RAmbr+EwpDegmldGpSAxPboiilG5mqTH+Q8rbylB13v83MFzddIPJAnT0ri2wL+LDu2nVcBzgR7S4PPufkQjBoTZl8kmRLi1r2sXnPCqqTtFRVcN2KVm69r1Ze1ojHiJgNOq/icdFBhonwlxKRuX19Ep/2Z2k1pEAVGBgBIZYdSqDAJ+6GzrOrXw==",
    "kc08_03": "4LtXB4QM6cXUj3U36wRkWsC5tJf+4Ka5yn5Gl5GiEFmMU7NflZOxEFxUJYpoMLwRfGFwtLzOBG8v7ghLSxnVR2nUb73cXPBLEfLt9cHCuyqohp0cDiBjnDsd6YeriZbontOOGpDoFCDZ8fV73RA9s315+vdwWPHNBP4Fbt9zBaDSU4slsfV9/g==",
    "kc08_04": "OI/KF4JmtqGYrHqDx0qNN0ThA1/uHwO1CmAhKRlt6reUIo0dNNJz20zK9xlkC8D18rLKsYUNiEsaMv4AJ2bBA+HqodRxmH32mgXbv+TXHPWBq85YquWRJxryF5B3/LhsqaqPO+kVM9Ro9pez/WJ2T4/wuJzJq9rbhA==",
    "kc08_05": "qbvH4jASILJsT9Bn8q3LwiVW8GVR4ZZpU5NbLcXo01cfuzeV3Btar0rwapor29UI7vadeILQSPPotO9WJG8Na7AoECi1MIH1Mfudy7fiUXwm8PA=",
    "kc08_06": "5OwPYFspWhgM/Mjs8mADT9gOTC7xHXMDueLZ+alF1TneRVfQ9LG4qyIeKDjOotE4yW+mSKYnWIeDyKdRB6krncthHiPDJydPqj+pRuAG3ub0KTn+QB9MkjYwRuGY9jndA8x5I3MZcnxVOJ1J7HU1pmc08vEsCP+a",
    "kc08_07": "oDjMcCGgySKfBLMK/tAFXqTM3AC8l6ED3G2PbVVy+0SsPVCO16sAgzrWfoiMMqCcqQt38vmTSy+78AHmycAwQQAM5fKXEjOgSZ8oJEIdjmF5L36h6qLsYI4eWSwARPrlLskaepQJyV+NfyDKPKc8fvdc8AqWWjPofvEDgWghC7Y0jrtc6yDLHn+n1dbLY9WYsbyi+A==",
    "kc08_08": "1ho0j+f+t5dzg2qBIrYUznu2sQIFOuvjsS03xDIgikakabSupQLvpeXuvI04CzmQFQ3agMA6ti58rwO7VIeF3yApcxpOCaFPKU5e6SlgDqadXxjcCxuqjB4MEkcFstGJ8tJPnxQq6miHWAag/LbiYITPjOWrHAs4FajO9A==",
    "kc08_09": "fOw81ly9ZreY/TRFhZSBxw4YwtBYqIAPyjiuM7MuI07EGd7mpGRoVZYKsS0dlwyEYOdpYba06QUnFS99GHsqTqe+9cnbeEcUMdsGuj/wFdIBhrg3YgqkGMGi9qNCY4o=",
    "kc08_10": "205zSvzucgCuxCHHgyH8Zf2VbeDTeoGYbzntQxuRd5c4NfxvIYjXPeG5uPLdTwm3B7WudExen5CUhpvsTVwq2/QcmFDWg3OkLubrYeLb2agkGtIM2rS5a+aBz78GCAYy8POYc44wdnJlDvnlM9kG5SlXgrkSdE5vG2pqRIm2WJqcmdzIJNz0LEL4hN6A1Pe8xCx54yxr",
    "kc08_11": "qnvl/HGHFi1pOGQ93uywPwlo1xHOh2iJqvgUCyw4Rg6V0kZR0xZLyHw/L5xl1MxI+N/MEwo1Zk46ZpJskgC/DX7l8K3NHurf",
    "kc08_12": "sTyjd5uBmlt2CoYbVhjCVWXt5//4v0/zOYt80RhU9CLGPvEDGXMIJx3OfN7rkKt73ZvGFr8wpB1VrF+mLqYa8ZgweMvHmEiCOulyvv4=",
    "kc08_13": "TFg/gG2FGuzPS+trDRp6nlyxa7AFxWM57l9IrPoMPklpzz8JmZmai7YcFNWXHZcMQIJyWuZ6gXmMTZid0wOOYklpZ3JsAKGsVh8FV/8SeKiW13u3mweNZwDNuHX3pQ==",
    "kc08_14": "EU8k/rc1VCeY4+PFwfKyH3Nwsv2SRsWDYLPdGKEYw3ipB3PFX13jil//SXnGpJ0YZqDzWFyR71TSt4HJn0MTVXLEIe1EQ0Xzxr51AnBdHw98kPzjwxBte1ykPpE6qf0KSpEjCTTwdUtahylI6KKFpCY=",
    "kc08_15": "lhGQjK4gU6wQjLqqLaayfudXlq33JDke6k5Tzl2iY2KdJP5dKEgEh4hzbaagvrqzs4/VVg56TZM3ctUDkO//mOM7bDQDqxD84Tv7ekUqO2WTuKm45ah8b/6l37OLgdQ5B74AsEy7FCXL1ULy8+VcpcY6MG6e",
    "kc08_16": "+xKPXslOleE8+NvYq58DxXRbB+Z+8V1HBCNzvTda8P7XM+FbrVR4sGxHnFWawra2NDrvsuJAZ/kn+mXlseIZzNnRrPW/e+NZZq6nmHDK4CDND48gkjeTQHV8FzO5nqc=",
    "kc08_17": "6vuEp/hAgTQ0xtBwBOJKDKKzmZXfRQSVtYqmnfjqxFoscN5I9/11hzxHw9fZ7hFe71CvvTki+8jCqpz81rKmoSYLavn1FUpn4USvwmy4OuXbW1GpgzKwGbRX4ZhnZETK8Czl6g2ca5DUYvAGBNM7uKzhWL7opE4UP7eLanNqvU9DJ5LYJdBlQKv4TspKRmg=",
    "kc08_18": "asXJD6SOB69SRSRoBJdemqT9uo1A3r3AFXbE2UgcJ4OphuM4Byrr93kYKIlT32BknKBTh6/86VSIB/AEZ7MjxiJ6ZYrhU9MwYA==",
    "kc08_19": "eY0gy+LiWCN5kKvVBfY8Tnd+Iah/93MTj2tEZnacq66vNctCe9Gsxx6/DgkP5wxfnX7pa7iQTrQApj3xOva+43wr06vRvSSRR8XujTigdhGILz2K/QtyKG9t46By+f00+q7OBKpo2cY/ZjugL9ucq0LNtqQi",
    "kc08_20": "XrJAIf/tnBwJm/uOkqxX1CG+LJfTJqawS8teMIZg/A4bOFXzbIU7/N9x6v8QlYLtdsKyFYG2",
    "kc08_21": "y3LvzeslXrb2mffDFzzcexvbcLdyLuAGNTn2tH0W+e2FO7yEhIufS+DJ39wsJKQ/xHj8b+2Mf1l44i81gY26/nP2pIE7O2IfaAZrDhzOVnKtGh82mb2CgA==",
    "kc08_22": "lVZEH6XhlJgZk0CD4oucqs577JwG9ysxxCMlCXHgFzUQBJa2H+KiR4EVMA16RMxCr+17YiJF2YsjTpTEO8ilo+6mP+CEyLcYwoZPHL2WsDpNt9ajRzgLKinQ8/o5MGKWVro=",
    "kc08_23": "1GQqr5VXT0ZgAcqneqksQEiEOk+3JLAS7bjGf9pe/xCBm4LZH3NZRO3CvHoRP09bIaWd7TYC5WtZgJZoyTkxznQCUpTHvqzuI2qD+xHxc4WXcG8XN+NZZFcGyQiSy+oQR9+nZRU8LA==",
    "kc08_24": "KBNQZ8OY5cjv+AgP+E6+92wHDYLHPVSLpZgLurnjzBeMHJP6yow3dDH+trvemNG1GDGIKurzZ8TFGbY=",
}


def state_path() -> Path:
    return Path(os.environ.get(STATE_ENV, Path.home() / ".labsupport" / "kc08_committed.json"))


def _load(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def review(namespace: dict, commit: bool = False, path: Path | None = None) -> list[str]:
    """Commit the answers in ``namespace`` (with ``commit``) and print feedback on every
    committed one. Returns the printed lines."""
    path = state_path() if path is None else Path(path)
    done = _load(path)
    answers = {i: namespace[i] for i in kc08.KEY if i in namespace}
    if commit:
        new = {i: repr(a) for i, a in answers.items() if i not in done}
        if new:
            done.update(new)
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(done, indent=1))
            except OSError as exc:
                print(f"could not save your commit ({exc}); feedback is for this run only")
    lines = []
    for item in kc08.KEY:
        if item not in done:
            lines.append(f"{item}: " + ("not committed yet" if item in answers else "not answered"))
            continue
        answer = ast.literal_eval(done[item])
        try:
            ok = kc08._correct(item, kc08.KEY[item], answer)
        except AssertionError:
            ok = False
        changed = item in answers and repr(answers[item]) != done[item]
        lines.append(f"{item}: {'right' if ok else 'not right'} (committed {done[item]})"
                     f"{' - changed since, the verdict is for the committed one' if changed else ''}"
                     f"\n    {unseal(item, SEALED[item])}")
    if not commit and len(done) < len(kc08.KEY):
        lines.append("set COMMIT = True and run this cell again to commit your answers and see "
                     "the feedback; committed answers are final for this feedback")
    print("\n".join(lines))
    return lines
