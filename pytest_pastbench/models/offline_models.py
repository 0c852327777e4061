"""The ``pastbench/<name>`` offline models the registered protocols provide, without litellm.

Each protocol names its reference policies (``BenchProtocol.offline_models``) and says which
conversations its own ``OfflinePolicy`` answers; PAST's reads claims for the reference judge
(``BenchProtocol.claim_reader``). The litellm provider (``offline_provider.py``), the direct
``PolicyModel`` (``direct.py``) and the start-up checks all ask here, so they agree on the names.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..judge.base import ClaimReader
    from ..protocols.base import BenchProtocol, OfflinePolicy


class NoOfflinePolicy(LookupError):
    """No registered protocol's offline policy answers the conversation."""


def _protocols() -> Iterable[BenchProtocol]:
    # Outside a pytest run too (the provider serves a gateway process): the built-in protocols
    # and the plugins named on a command line, as every other caller outside pytest reads them.
    from ..protocols.registry import standalone_registry

    return standalone_registry()


def agent_policies(protocols: Iterable[BenchProtocol] | None = None) -> dict[str, Any]:
    """Offline model name -> its policy object, over the registered protocols. Two protocols may
    name the same model only with equal policies (a model behaves one way in every protocol)."""
    policies: dict[str, Any] = {}
    owners: dict[str, str] = {}
    for protocol in _protocols() if protocols is None else protocols:
        for name, policy in protocol.offline_models().items():
            if name in policies and policies[name] != policy:
                raise ValueError(
                    f"offline model pastbench/{name} is named by protocols {owners[name]} and "
                    f"{protocol.name} with different policies; rename one"
                )
            policies.setdefault(name, policy)
            owners.setdefault(name, protocol.name)
    return policies


def answering_policy(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> OfflinePolicy:
    """The offline policy of the protocol whose session this is: the registered protocols' in
    order, a catch-all one (PAST's) only when no other recognises the conversation."""
    policies = [p for p in (protocol.offline_policy() for protocol in _protocols()) if p is not None]
    for policy in sorted(policies, key=lambda p: p.catch_all):  # stable: registration order within
        if policy.handles(messages, tools):
            return policy
    raise NoOfflinePolicy("no registered protocol's offline policy answers this conversation")


def decide(policy: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
    """The next message of offline model ``policy`` (a policy object of ``agent_policies``):
    ``{"content": text}`` or ``{"tool_calls": [(name, arguments), ...]}``."""
    return answering_policy(messages, tools).decide(policy, messages, tools)


def claim_reader() -> ClaimReader | None:
    """The first registered protocol's deterministic claim reader (the built-in four: PAST's)."""
    return next((r for r in (p.claim_reader() for p in _protocols()) if r is not None), None)
