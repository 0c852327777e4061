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
from pytest_pastbench.protocols.shared.curation import has_credential
from pytest_pastbench.protocols.shared.replay import POLICIES

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


def test_the_task_request_is_not_kept_but_feedback_on_the_work_is(tmp_path: Path) -> None:
    # In a session's first turn an instruction is the task: its values are the case's. In a later
    # turn the same shape is feedback on how the work is done, and that is what a memory keeps.
    from pytest_pastbench.protocols.shared.curation import worth_keeping

    request = "Please approve these refunds: booking KT-88120 for EUR 380 and KT-88417 for EUR 2,300."
    feedback = "File the refunds in REFUNDS-HIGH when one is over EUR 1,000."
    assert worth_keeping([request], follow_up=False) == []
    assert worth_keeping([feedback], follow_up=True) == [feedback]
    # A first-turn instruction that states a rule (a contrast) is kept all the same.
    rule = "Send refunds to REFUNDS-HIGH, not the general queue."
    assert worth_keeping([rule], follow_up=False) == [rule]


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


# Credential shapes invented for this test (none is in the families): natural passwords with one
# digit or a capital after a lower-case word, PINs and door codes said in passing, machine keys
# and tokens, and a user / password pair.
SECRET_STATEMENTS = [
    "The guest wifi password is Gull7harbour! if anyone asks.",
    "VPN passphrase: tulip-Orbit-42",
    "Gull7harbour! gets you onto the guest wifi.",  # no credential word: the shape alone
    "For the VPN, type tulip-Orbit-42 when it asks.",
    "Her PIN 4471 opens the locker by the lifts.",
    "My bank PIN is 9032, please forget it after the call.",
    "Disarm the alarm at the side entrance (code 2280) before you open up.",
    "The recovery code for the shared mailbox: 8812-4410-3391.",
    "Use the API key 3f9a1c77e2b04d6a8c5e for the sandbox.",
    "The deploy token for staging is ghp_R8vT2mQx91LkPz07NwYb until Friday.",
    "Access key AKIAZ3QW7TRM9XK2PLV4 belongs to the CI user.",
    "Someone pasted sk_live_4eC39HqLyjWDarjtT1zdp7dc into the channel.",
    "Staging creds are admin / Marlin-77x.",
    "Try Winter2026!x on the kiosk.",
    "Run the job with --password=Heron55 on the build box.",
]
# Values that look code-like but name things: ids, queues, versions, handles, amounts, dates,
# dock and rack codes, numbers after words that are not credentials.
PLAIN_STATEMENTS = [
    "Refund tickets for Osterfeld go to the OPS-4471 queue with priority P2.",
    "The Osterfeld app ships v10.12.3 to the Corp-Std-3 profile next week.",
    "Escalate to @ines.marchetti when the DC-FAC queue backs up.",
    "Pallets for Lindqvist go to dock C-14, rack 4B.",
    "The invoice total was €21,450.00 on 2026-03-14, due by 14/04.",
    "Version 2.3.1 fixed the login page crash after 09:30.",
    "The token limit is 4096 per request.",
    "Password resets go through the IT portal at https://it.example.com/reset.",
    "HS code 8471.30 covers the laptops; error code 5041 is the gateway.",
    "A hardware token is issued to every engineer.",
    "Order INV-2026-00042 shipped on the 5th to ana.lopez@example.com.",
    "The secret to a clean handoff is a written checklist.",
    "Record 123e4567-e89b-12d3-a456-426614174000 is the master row for device ID 5f2a-88c1.",
    "The failover runs on pg-orders-replica-2 with the 0142_add_ledger_index migration first.",
    "Batch B-2291-XL ships with AES-256-GCM and the x86_64 build of llama-3.1-70b.",
    "Rerun it with --tz=UTC and the follow-up-2 template.",
]


@pytest.mark.parametrize("text", SECRET_STATEMENTS)
def test_a_credential_of_any_shape_is_recognised(text: str) -> None:
    assert has_credential(text)


@pytest.mark.parametrize("text", PLAIN_STATEMENTS)
def test_ids_versions_handles_amounts_and_codes_are_not_credentials(text: str) -> None:
    assert not has_credential(text)


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
