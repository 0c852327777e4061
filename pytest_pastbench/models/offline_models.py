"""The ``pastbench/<name>`` offline models the registered protocols provide, without litellm.

Each protocol names its reference policies (``BenchProtocol.offline_models``) and says which
conversations its own ``OfflinePolicy`` answers; PAST's reads claims for the reference judge
(``BenchProtocol.claim_reader``). The litellm provider (``offline_provider.py``), the direct
``PolicyModel`` (``direct.py``) and the start-up checks all ask here, so they agree on the names.

Which protocols those are, the entry point says (``use_protocols``): the pytest plugin at
configure, the gateway's process and the ``pastbench`` command at their start. A litellm call
cannot carry a registry down to the provider, so it is handed in once per process, never looked up
from here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..judge.base import ClaimReader
    from ..protocols.base import BenchProtocol, OfflinePolicy


class NoOfflinePolicy(LookupError):
    """No registered protocol's offline policy answers the conversation."""


ProtocolSource = Callable[[], Iterable["BenchProtocol"]]
_source: ProtocolSource | None = None


def use_protocols(source: ProtocolSource) -> None:
    """Where this process's offline models find the registered protocols: ``source()`` is called
    on first use, not here (a registry imports every protocol)."""
    global _source
    _source = source


def _protocols() -> Iterable[BenchProtocol]:
    if _source is None:
        raise RuntimeError(
            "offline models: no protocols were handed in; the entry point (the pytest plugin, the "
            "pastbench command, the gateway's process) calls offline_models.use_protocols first"
        )
    return _source()


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
