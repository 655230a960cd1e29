"""Every batching policy by name (``POLICIES``), listed here once, and ``make_policy``, which
builds the policy a ``BatchConfig`` names. Nothing else writes into ``POLICIES``; at import
its names are checked against ``config.DELAY_MEANING`` (a policy the knobs do not describe,
or a meaning without a policy, is an error, not a silent gap)."""
from __future__ import annotations

from dataclasses import asdict, replace

from ..validate import check_choice
from .adaptive import Adaptive
from .bucketed import Bucketed
from .config import DELAY_MEANING, BatchConfig, knob_names
from .policies import Early, Naive, Policy, Window, WorkConserving

POLICIES: dict[str, type[Policy]] = {
    p.name: p for p in (Naive, Window, Early, WorkConserving, Bucketed, Adaptive)}


def check_registry(policies: dict[str, type[Policy]] = POLICIES) -> None:
    """``ImportError`` unless ``policies`` and ``DELAY_MEANING`` name the same policies."""
    if set(policies) != set(DELAY_MEANING):
        raise ImportError(
            f"batching.registry.POLICIES {sorted(policies)} and config.DELAY_MEANING "
            f"{sorted(DELAY_MEANING)} must name the same policies: say what max_delay_ms "
            f"means under each policy, and register each policy here")


check_registry()


def make_policy(policy: str | Policy | None = None, cfg: BatchConfig | None = None,
                **knobs) -> Policy:
    """The policy that runs ``cfg`` (a ``BatchConfig``) and/or ``knobs``: by name (``policy``,
    else ``cfg.policy`` / ``knobs["policy"]``: ``naive``, ``window``, ``early``,
    ``work_conserving``, ``bucketed``, ``adaptive``, …; a name or knob given here overrides
    ``cfg``'s), or a ``Policy`` object bound to them: it is returned as given when they agree
    with its own ``cfg``, and rejected with a ``ValueError`` naming the knob when they do not
    (never silently ignored)."""
    if isinstance(policy, Policy):
        if cfg is None and not knobs:
            return policy
        want = replace(cfg or policy.cfg, **knobs)
        have = asdict(policy.cfg)
        clash = {k: v for k, v in asdict(want).items()
                 if k != "policy" and have.get(k, v) != v}  # the object is the policy
        if clash:
            name, value = next(iter(clash.items()))
            raise ValueError(
                f"{name}={value!r} disagrees with the policy object given "
                f"({policy!r} has {name}={have[name]!r}); set the knobs in one place: "
                f"pass them to the policy, or pass the policy by name")
        return policy
    names = knob_names(None if cfg is None else type(cfg))
    given = {k: knobs.pop(k) for k in list(knobs) if k in names}  # the rest: the policy's own
    if policy is not None:
        given["policy"] = policy
    if cfg is None:
        cfg = BatchConfig(**given)
    elif any(getattr(cfg, k) != v for k, v in given.items()):
        cfg = replace(cfg, **given)  # a copy: the caller's config stays as it was
    return POLICIES[check_choice("policy", cfg.policy, POLICIES)](cfg, **knobs)
