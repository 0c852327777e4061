"""The reference policies through the real agent loop, store and world (no litellm here;
tests/models/test_offline_provider.py covers the litellm path)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pastbench.agents.base import HermesAgent
from pytest_pastbench.core.store import Store
from pytest_pastbench.models.direct import PolicyModel
from pytest_pastbench.protocols.past.engine import run_agent_session
from pytest_pastbench.protocols.past.offline_policy import decide
from pytest_pastbench.protocols.past.schema import WorldSeed
from pytest_pastbench.protocols.past.world import World
from pytest_pastbench.protocols.shared.replay import POLICIES
from tests.protocols.shared.test_curation import PLAIN_STATEMENTS, SECRET_STATEMENTS

# The direct (no litellm) client; other tests import it from here under this name.
PolicyClient = PolicyModel


def session(
    name: str,
    store: Store,
    text: str,
    world: WorldSeed | None = None,
    index: int = 0,
    mechanisms: list[str] | None = None,
):
    return run_agent_session(
        HermesAgent(mechanisms=mechanisms),
        PolicyClient(name),
        store,
        World(world or WorldSeed()),
        [text],
        index=index,
    )


LEARN = (
    "Can you draft the Halvorsen invoice reminder? The Halvorsen invoices go out on the 5th business day. "
    "Just for today I'm working from the Berlin office."
)
CORRECT = (
    "Quick fix to the billing calendar: from now on the Halvorsen invoices go out on the 7th business day."
)
ASK = "When should the Halvorsen invoices be sent this month?"


def test_blind_never_touches_the_store(tmp_path: Path) -> None:
    store = Store(tmp_path)
    run = session("blind", store, LEARN)
    assert not any(c.name.startswith(("memory_", "skill_")) for c in run.tool_calls)
    assert store.entries() == []


def test_recall_stores_everything_and_keeps_stale_entries(tmp_path: Path) -> None:
    store = Store(tmp_path)
    session("recall", store, LEARN, index=0)
    session("recall", store, CORRECT, index=1)
    texts = [e.text for e in store.entries()]
    assert any("Berlin" in t for t in texts)  # noise kept
    assert any("5th business day" in t for t in texts) and any("7th business day" in t for t in texts)
    answer = session("recall", store, ASK, index=2).answer
    assert "5th business day" in answer and "7th business day" in answer


def test_base_curator_skips_noise_but_keeps_the_stale_fact_beside_its_correction(tmp_path: Path) -> None:
    store = Store(tmp_path)
    session("curator", store, LEARN, index=0)
    session("curator", store, CORRECT, index=1)
    live = [e.text for e in store.entries() if e.is_live()]
    assert not any("Berlin" in t for t in live)
    assert any("5th business day" in t for t in live) and any("7th business day" in t for t in live)
    answer = session("curator", store, ASK, index=2).answer
    assert "7th business day" in answer and "5th business day" in answer  # the base defect


TASK_TALK = (
    "I'm covering receivables at Brannock this week. Please draft the reminder to Halvard Mills. "
    "Halvard Mills is on net-45 since the spring review. Send the corrected one to FIN-AR, "
    "not the general inbox. Keep it short, please."
)


def test_the_curator_keeps_knowledge_and_not_the_talk_around_the_task(tmp_path: Path) -> None:
    # What a memory agent keeps: the fact and the routing rule given as an instruction (it carries
    # a queue and a contrast), not the request for today's task nor the user's remark about
    # themselves. Recall, the weaker agent, keeps every statement.
    store = Store(tmp_path)
    session("curator", store, TASK_TALK)
    kept = [e.text for e in store.entries()]
    assert any("net-45" in t for t in kept) and any("FIN-AR" in t for t in kept)
    assert not any(t.startswith(("I'm covering", "Please draft", "Keep it short")) for t in kept)
    recall_store = Store(tmp_path / "recall")
    session("recall", recall_store, TASK_TALK)
    assert len(recall_store.entries()) == 5


RULE = "Vendor set-up tickets at Quorum go to LEGAL-OPS at P2, after the confidentiality addendum is signed."
NEW_CASE = (
    "Our vendor for the hearing recordings sent their set-up form over. "
    "The form lists two signatories and a billing contact. Please open the vendor set-up ticket."
)
NEWS = "Please open the vendor set-up ticket, but it is now handled by Mara Quist at Quorum."


def test_a_new_case_of_a_known_rule_is_not_stored_but_a_change_is(tmp_path: Path) -> None:
    # A request its notes already speak to is a new case: the case's narrative is not knowledge.
    # What the turn changes (a word of change, a value or a name the notes can be told) is kept.
    store = Store(tmp_path)
    session("curator", store, RULE, index=0)
    session("curator", store, NEW_CASE, index=1)
    assert [e.text for e in store.entries()] == [RULE]
    session("curator", store, NEWS, index=2)
    assert any("Mara Quist" in e.text for e in store.entries())


@pytest.mark.parametrize("mechanism", ["E2", "E5"])
def test_curator_retires_the_stale_fact_with_e2_or_e5(tmp_path: Path, mechanism: str) -> None:
    store = Store(tmp_path)
    for index, text in enumerate([LEARN, CORRECT]):
        session("curator", store, text, index=index, mechanisms=[mechanism])
    live = [e.text for e in store.entries() if e.is_live()]
    assert not any("5th business day" in t for t in live) and any("7th business day" in t for t in live)
    answer = session("curator", store, ASK, index=2, mechanisms=[mechanism]).answer
    assert "7th business day" in answer and "5th" not in answer
    if mechanism == "E2":  # retired by pointer (still in the store as evidence), not deleted
        [stale] = [e for e in store.entries() if "5th business day" in e.text]
        assert stale.superseded_by and not stale.deleted


def test_recall_does_not_curate_even_when_asked_to_close(tmp_path: Path) -> None:
    store = Store(tmp_path)
    for index, text in enumerate([LEARN, CORRECT]):
        session("recall", store, text, index=index, mechanisms=["E2", "E5"])
    live = [e.text for e in store.entries() if e.is_live()]
    assert any("5th business day" in t for t in live) and any("7th business day" in t for t in live)


def test_curator_packages_numbered_steps_as_one_skill(tmp_path: Path) -> None:
    store = Store(tmp_path)
    steps = "\n".join(f"{i}. step {w} of the cert rotation" for i, w in enumerate("abcdef", 1))
    session("curator", store, "Here is how we rotate the TLS cert for the gateway:\n" + steps)
    skills = [e for e in store.entries() if e.kind == "skill"]
    assert len(skills) == 1 and skills[0].text.count("\n") == 6
    answer = session(
        "curator", store, "Rotate the TLS cert for the billing gateway, same as before.", index=1
    ).answer
    assert all(f"step {w}" in answer for w in "abcdef")


def test_memory_supplies_the_codename_the_archive_is_indexed_under(tmp_path: Path) -> None:
    seed = WorldSeed.model_validate(
        {"archive": [{"id": "R-1", "title": "Heron close-out", "body": "Revert lead: @dana.p", "tags": []}]}
    )
    question = (
        "What did the payments ledger migration retrospective in the archive say about the rollback owner?"
    )
    store = Store(tmp_path)
    assert "@dana.p" not in session("recall", store, question, seed, index=0).answer
    session(
        "recall", store, "Project Heron is what we call the payments ledger migration internally.", index=1
    )
    assert "@dana.p" in session("recall", store, question, seed, index=2).answer


def test_a_remembered_freeze_stops_a_deploy(tmp_path: Path) -> None:
    store = Store(tmp_path)
    ask = "Please deploy payments v2.4 now."
    blind = session("blind", Store(tmp_path / "b"), ask)
    assert [c.name for c in blind.tool_calls] == ["deploys_create"]
    session("recall", store, "Heads up: payments deploys are in a change freeze until March 14.", index=0)
    run = session("recall", store, ask, index=1)
    assert "deploys_create" not in [c.name for c in run.tool_calls]
    assert "freeze" in run.answer


def test_decide_is_a_pure_function_of_the_messages() -> None:
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": ASK}]
    tools = {"memory_search", "memory_write"}
    assert decide(POLICIES["recall"], messages, tools) == decide(POLICIES["recall"], messages, tools)
    assert decide(POLICIES["recall"], messages, tools)["tool_calls"][0][0] == "memory_search"


def test_a_session_without_tools_still_gets_an_answer() -> None:
    messages = [{"role": "user", "content": ASK}]
    assert "content" in decide(POLICIES["curator"], messages, set())


# A correction the way it arrives at work: a forwarded notice, no "from now on", the old value
# repeated in the notice's first line, and a transient remark after the closing quote.
FORWARDED = (
    'The depot sent this, can you reword it for the client? "Pickup failed at Bay 7. The yard says '
    'Bay 7 closed for repairs; Osterfeld parcels are now collected at Bay 12C only." '
    "I'm stuck in a meeting right now, so keep it short."
)
TOLD = "Draft the pickup note for Osterfeld. Their parcels are collected at Bay 7 by the north gate."


def test_the_close_pass_retires_every_note_that_states_the_replaced_value(tmp_path: Path) -> None:
    store = Store(tmp_path)
    for index, text in enumerate([TOLD, FORWARDED]):
        session("curator", store, text, index=index, mechanisms=["E2", "E5"])
    live = [e.text for e in store.entries() if e.is_live()]
    assert any("Bay 12C" in t for t in live)
    # The old note and the notice's "Pickup failed at Bay 7." are retired; only the correction
    # itself still names the old bay.
    assert all("Bay 12C" in t for t in live if "Bay 7" in t), live
    assert not any("meeting" in t for t in live)  # the sentence after the closing quote is noise


def test_the_base_curator_keeps_the_forwarded_notice_beside_the_old_note(tmp_path: Path) -> None:
    store = Store(tmp_path)
    for index, text in enumerate([TOLD, FORWARDED]):
        session("curator", store, text, index=index)
    live = [e.text for e in store.entries() if e.is_live()]
    assert any("Bay 12C" in t for t in live) and any("Bay 7 by the north gate" in t for t in live)


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("The billing console login is ops-admin / Quartz!5521 if you need it.", False),
        ("Their sandbox key is sk-93bd07ee, rotate it after the demo.", False),
        ("The side door code 663104 works after hours.", False),
        ("The deploy hook is hk-build-Zr81p, use it sparingly.", False),
        ("Refund tickets for Osterfeld go to the OPS-4471 queue with priority P2.", True),
        ("The Osterfeld app ships v10.12.3 to the Corp-Std-3 profile next week.", True),
    ],
)
def test_the_curator_never_stores_a_credential(tmp_path: Path, text: str, stored: bool) -> None:
    store = Store(tmp_path)
    session("curator", store, text)
    assert bool(store.entries()) is stored, [e.text for e in store.entries()]


@pytest.mark.parametrize(
    ("text", "stored"),
    [(SECRET_STATEMENTS[0], False), (SECRET_STATEMENTS[2], False), (PLAIN_STATEMENTS[3], True)],
)
def test_the_curator_skips_a_natural_password_and_keeps_the_dock_code(
    tmp_path: Path, text: str, stored: bool
) -> None:
    store = Store(tmp_path)
    session("curator", store, text)
    assert bool(store.entries()) is stored, [e.text for e in store.entries()]
