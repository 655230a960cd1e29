"""The replica pickers (``batching.routing``), shared by the live router and the replica
simulator: each rule, unusable replicas skipped, bad input named."""
import pytest

from labsupport.batching.routing import make_picker


def test_round_robin_takes_turns_and_skips_a_replica_that_is_down():
    p = make_picker("round_robin", 3)
    assert [p.pick([9, 0, 0]) for _ in range(6)] == [0, 1, 2, 0, 1, 2]
    assert [p.pick([0, 0, 0], [True, False, True]) for _ in range(4)] == [0, 2, 0, 2]


def test_least_outstanding_joins_the_shortest_queue_and_shares_ties():
    p = make_picker("least_outstanding", 4)
    assert p.pick([3, 1, 2, 5]) == 1
    assert p.pick([3, 1, 2, 5], [True, False, True, True]) == 2
    assert sorted(p.pick([0, 0, 0, 0]) for _ in range(4)) == [0, 1, 2, 3]


def test_p2c_never_takes_the_busier_of_its_two_samples():
    p = make_picker("p2c", 5, seed=1)
    load = [0, 4, 4, 4, 4]
    picks = [p.pick(load) for _ in range(400)]
    # replica 0 is in a sample with probability 2/5 and always wins it; others never beat it
    assert 0.3 < picks.count(0) / len(picks) < 0.5
    assert make_picker("p2c", 2).pick([7, 2]) == 1 and make_picker("p2c", 1).pick([5]) == 0
    with pytest.raises(ValueError, match="one entry per replica"):
        p.pick([0, 0])


def test_bad_routing_and_replica_counts_name_the_parameter():
    with pytest.raises(ValueError, match="routing must be one of"):
        make_picker("random", 2)
    with pytest.raises(ValueError, match=r"replicas must be an integer in \[1, 1024\]"):
        make_picker("p2c", 0)
    with pytest.raises(LookupError):
        make_picker("round_robin", 2).pick([0, 0], [False, False])
