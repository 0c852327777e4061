"""One episode's tool box and record: each domain's own tools over a world no other episode shares."""

from __future__ import annotations

from pytest_pastbench.protocols.stream.servelearn.episode import Episode, toolbox

from .helpers import scenarios, task

SCENARIOS = scenarios()


def test_each_domain_gets_its_own_tools_and_pitch_reads_documents_only() -> None:
    retail = toolbox(SCENARIOS["retail_l1"], task("retail_l1", "rfx_s1"))
    banking = toolbox(SCENARIOS["banking_l1"], task("banking_l1", "bfx_s2"))
    pitch = toolbox(SCENARIOS["pitch_l1"], task("pitch_l1", "pfx_s1"))
    assert "cancel_pending_order" in retail.handlers and "deny_case" not in retail.handlers
    assert "deny_case" in banking.handlers and "cancel_pending_order" not in banking.handlers
    assert set(pitch.handlers) == {"read_docs"}


def test_two_episodes_of_one_task_never_share_their_world() -> None:
    first, second = (toolbox(SCENARIOS["retail_l1"], task("retail_l1", "rfx_s1")) for _ in range(2))
    first.call("cancel_pending_order", {"order_id": "#W1000002", "reason": "no longer needed"})
    assert first.state["orders"]["#W1000002"]["status"] == "cancelled"
    assert second.state["orders"]["#W1000002"]["status"] == "pending"


def test_a_new_episode_has_no_steps_and_no_submission_yet() -> None:
    episode = Episode("rfx_s1")
    assert (episode.steps, episode.finish, episode.tool_calls, episode.turns) == ([], None, 0, 0)
    assert Episode("x").steps is not episode.steps  # every record its own list
