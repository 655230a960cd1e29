"""The short answers' judge (``exercises/kc08.py`` over ``exercises/negation.py``) against
the grader's tables of phrasings (``keys/kc08_phrasings.json``: what the key was tuned
on) and a held-out set written before tuning (``keys/kc08_heldout.json``, never edited
after); answers it cannot resolve go to the trainer, and messages name the concept."""
import json
from pathlib import Path

import pytest

from labsupport.exercises import answer_key, kc08, negation
from labgrader import keyed

ROOT = Path(__file__).resolve().parents[2]
KEY = answer_key.load(kc08.KEY_FILE)
SHORT = [i for i, f in kc08.FORM.items() if f.kind == "short"]


def _table(name: str) -> dict:
    table = json.loads((ROOT / "keys" / f"{name}.json").read_text())
    return {i: rows for i, rows in table.items() if not i.startswith("_")}


def _rows(name: str, kind: str) -> list:
    return [(i, a) for i, rows in _table(name).items() for a in rows[kind]]


def test_every_short_item_has_a_table_of_real_phrasings():
    table = _table("kc08_phrasings")
    assert set(table) == set(SHORT)
    for item, rows in table.items():
        assert len(set(rows["right"])) >= 15 and len(set(rows["wrong"])) >= 10, item
    assert set(_table("kc08_heldout")) == set(SHORT)


@pytest.mark.parametrize("item, answer", _rows("kc08_phrasings", "right"))
def test_right_phrasings_are_accepted(item, answer):
    assert kc08.judge(item, answer, KEY) == (None, None)


@pytest.mark.parametrize("item, answer", _rows("kc08_phrasings", "wrong"))
def test_wrong_or_negated_phrasings_are_never_accepted(item, answer):
    wrong, review = kc08.judge(item, answer, KEY)
    assert wrong or review


def test_held_out_phrasings():
    """≥ 98 % of the held-out right phrasings accepted; no wrong or negated one accepted
    (rejected, or sent to review)."""
    right = _rows("kc08_heldout", "right")
    accepted = [a for i, a in right if kc08.judge(i, a, KEY) == (None, None)]
    assert len(accepted) >= 0.98 * len(right), sorted({a for _, a in right} - set(accepted))
    passed = [(i, a) for i, a in _rows("kc08_heldout", "wrong")
              if kc08.judge(i, a, KEY) == (None, None)]
    assert not passed


@pytest.mark.parametrize("text, phrase, expected", [
    ("not the KV cache, it is the activations", "kv cache", negation.DENIED),
    ("not the activations, it is the KV cache", "kv cache", negation.AFFIRMED),
    ("not the activations but the KV cache", "kv cache", negation.AFFIRMED),
    ("the activations rather than the KV cache", "kv cache", negation.DENIED),
    ("the KV cache rather than the activations", "kv cache", negation.AFFIRMED),
    ("the weights instead of the KV cache", "kv cache", negation.DENIED),
    ("Not the weights. Instead the KV cache", "kv cache", negation.AFFIRMED),
    ("They hang? They don't, each gets the error", "hang", negation.DENIED),
    ("Do they hang? Yes, forever", "hang", negation.AFFIRMED),
    ("Do they hang? Of course not", "hang", negation.DENIED),
    ("not only the batch size", "batch size", negation.AFFIRMED),
    ("it is not true that they don't hang", "hang", negation.AFFIRMED),
    ("No, they hang", "hang", negation.AFFIRMED),
    ("no they hang", "hang", negation.AFFIRMED),
    ("they never hang", "hang", negation.DENIED),
    ("their futures are never resolved", "never resolved", negation.AFFIRMED),
    ("it is not that their futures are never resolved", "never resolved", negation.DENIED),
    ("the KV cache isn't it", "kv cache", negation.DENIED),
    ("waiting for the timer is not it", "wait", negation.DENIED),
    ("hardly the KV cache", "kv cache", negation.UNCERTAIN),
    ("I am not sure it is the KV cache", "kv cache", negation.UNCERTAIN),
    ("KV cache? maybe, though not always", "kv cache", negation.UNCERTAIN),
    ("waiting for the batch that is not full yet", "wait", negation.UNCERTAIN),
    ("the KV cache", "kv cache", negation.AFFIRMED),
    ("the activations", "kv cache", None),
])
def test_negation_by_clause_and_scope(text, phrase, expected):
    assert negation.status(text, [negation.folded(phrase)])[0] == expected


def test_an_uncertain_answer_goes_to_review_with_the_reason(tmp_path):
    wrong, review = kc08.judge("kc08_10", "hardly the KV cache", KEY)
    assert wrong is None and review.startswith("kc08_10: sent to your trainer")
    assert "the memory the budget counts" in review and "hardly the kv cache" in review
    # the grader's judge of a course hands it on as a review reason (pipeline: ManualReview)
    keys = keyed.Keys(ROOT)
    assert keys.judge("kc08_10", "hardly the KV cache") == (None, review)
    assert keys.judge("kc08_10", "the KV cache") == (None, None)


@pytest.mark.parametrize("item, answer, says", [
    ("kc08_10", "not the KV cache but the activations",
     "it names the memory the budget counts only to deny it (“not the kv cache”)"),
    ("kc08_01", "the max batch size", "it does not name the knob that caps how long"),
    ("kc08_36", "LoRA rather than full fine-tuning", "only to deny it"),
])
def test_the_message_names_the_missing_or_denied_concept(item, answer, says):
    with pytest.raises(AssertionError, match=rf"^{item}: not correct yet — ") as err:
        kc08.check(item, answer, hidden=True)
    assert says in str(err.value)
