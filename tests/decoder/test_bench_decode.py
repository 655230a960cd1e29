"""``labsupport bench decode``'s arguments and the peer's sizing (the bench itself runs for
minutes: it is not a test)."""
import pytest

from labsupport.benches.decode import _args
from labsupport.benches.decode_peer import peer_sizing


def test_peer_is_sized_like_our_engine():
    s = peer_sizing(max_seqs=32, kv_budget_tokens=16384, block_size=16, max_tokens_per_step=256)
    assert s["num_blocks"] * s["page_size"] == 16384 and s["page_size"] == 16
    assert s["max_batch_tokens"] == 256 and s["max_requests_per_batch"] == 32


@pytest.mark.parametrize("argv, match", [(["--trace", "/nope.csv"], "--trace"),
                                         (["--prefix-len", "0"], "--prefix-len"),
                                         (["--max-tokens-per-step", "0"], "--max-tokens-per-step")])
def test_bad_arguments_name_the_option(argv, match, capsys):
    with pytest.raises(SystemExit):
        _args(argv)
    assert match in capsys.readouterr().err
