"""The offline curator's rules: what a turn teaches (facts, rules, corrections, procedures) and
what it skips (credentials by their shape, one-off remarks, task talk), and how it is written."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_pastbench.protocols.shared.curation import (
    has_credential,
    key_overlap,
    lookup_keys,
    names_in,
    replaced_notes,
    stem,
    store_statements,
    value_words,
    worth_keeping,
)
from pytest_pastbench.protocols.shared.replay import POLICIES, Emit, OfferedTools, Replay, offered_tools

WRITE_TOOLS = {"memory_write", "memory_search", "skill_write"}


def writes(
    policy: str,
    text: str,
    *,
    hits: list[dict[str, Any]] | None = None,
    tools: OfferedTools | None = None,
    follow_up: bool = True,
) -> list[tuple[str, dict[str, Any]]]:
    """The calls the policy makes first for a turn (none have run yet: the replay emits them)."""
    try:
        store_statements(
            POLICIES[policy], text, hits or [], Replay([], WRITE_TOOLS), tools or offered_tools(WRITE_TOOLS),
            follow_up,
        )  # fmt: skip
    except Emit as emitted:
        return emitted.calls
    return []


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


def test_the_task_request_is_not_kept_but_feedback_on_the_work_is() -> None:
    # In a session's first turn an instruction is the task: its values are the case's. In a later
    # turn the same shape is feedback on how the work is done, and that is what a memory keeps.
    request = "Please approve these refunds: booking KT-88120 for EUR 380 and KT-88417 for EUR 2,300."
    feedback = "File the refunds in REFUNDS-HIGH when one is over EUR 1,000."
    assert worth_keeping([request], follow_up=False) == []
    assert worth_keeping([feedback], follow_up=True) == [feedback]
    # A first-turn instruction that states a rule (a contrast) is kept all the same.
    rule = "Send refunds to REFUNDS-HIGH, not the general queue."
    assert worth_keeping([rule], follow_up=False) == [rule]


def test_recall_keeps_every_statement_and_step_but_no_question() -> None:
    text = "The gate opens at 7. Is that right?\n1. Badge in\n2. Sign the log"
    assert writes("recall", text) == [
        ("memory_write", {"text": "The gate opens at 7."}),
        ("memory_write", {"text": "Badge in"}),
        ("memory_write", {"text": "Sign the log"}),
    ]


def test_the_curator_writes_three_numbered_steps_as_a_skill() -> None:
    text = "Closing the warehouse each night.\n1. Lock dock doors\n2. Arm the alarm\n3. Log the time"
    (call,) = writes("curator", text)[:1]
    assert call[0] == "skill_write"
    assert call[1]["steps"] == ["Lock dock doors", "Arm the alarm", "Log the time"]
    # Named and tagged by the words of the statement that introduces it.
    assert call[1]["name"].split() == call[1]["tags"][:5] and "warehouse" in call[1]["tags"]
    assert not set(call[1]["tags"]) & {"lock", "alarm"}
    two_steps = writes("curator", "Closing the warehouse each night.\n1. Lock dock doors\n2. Arm the alarm")
    assert two_steps and all(name == "memory_write" for name, _ in two_steps)  # under three: no skill


def test_the_curator_skips_what_it_already_knows_noise_and_credentials() -> None:
    rule = "Invoices from Halvard go to the FIN-AR queue within two days."
    assert writes("curator", rule) == [("memory_write", {"text": rule})]
    assert writes("curator", rule, hits=[{"id": "m1", "text": rule}]) == []
    assert writes("curator", "Just for today the printer on floor two is broken and slow.") == []
    assert writes("curator", "The billing console password is Quartz!5521 for everyone.") == []


def test_with_e2_a_correction_names_its_entity_and_searches_for_what_it_replaces() -> None:
    correction = "Invoices from Halvard now go to the FIN-AP queue instead."
    structured = OfferedTools(frozenset(WRITE_TOOLS), {"memory_write": frozenset({"text", "supersedes"})})
    # The search runs first: the write waits for its result.
    assert writes("curator", correction, tools=structured) == [("memory_search", {"query": correction})]
    old = [{"id": "m7", "text": "Invoices from Halvard go to the FIN-AR queue."}]
    replay = Replay([("memory_search", old)], WRITE_TOOLS)
    with pytest.raises(Emit) as emitted:
        store_statements(POLICIES["curator"], correction, [], replay, structured)
    assert emitted.value.calls == [
        ("memory_write", {"text": correction, "entity": "Halvard", "supersedes": "m7"})
    ]
    # Without E2 the correction is a new note and the old one stays live.
    assert writes("curator", correction) == [("memory_write", {"text": correction})]


def test_replaced_notes_takes_the_most_similar_then_those_repeating_its_old_value() -> None:
    correction = "Returns for Lindqvist now go to dock 12."
    notes = [
        {"id": "a", "text": "Returns for Lindqvist go to dock 11."},
        {"id": "b", "text": "Dock 11 takes Lindqvist pallets on Mondays."},
        {"id": "c", "text": "Canteen opens at 11."},  # the old value, about something else
        {"text": "Returns for Lindqvist go to dock 11, no id."},  # cannot be named
    ]
    assert replaced_notes(correction, notes) == ["a", "b"]
    assert replaced_notes(correction, [{"id": "z", "text": "Lindqvist"}]) == []  # one shared word
    assert replaced_notes(correction, []) == []


def test_the_word_rules() -> None:
    # Numbers, ids and upper-case codes; a plain capitalised word is not a value.
    assert value_words("Ask Dara about OPS-4471 in room 3b on Tuesday.") == {"ops-4471", "3b"}
    assert "tuesday" not in value_words("Meet on Tuesday") and "a" not in value_words("A plan")
    assert [stem(w) for w in ("Invoices", "class", "bus", "Team's")] == ["invoice", "class", "bus", "team"]
    assert {"house", "style", "house-style", "guide"} <= lookup_keys("the house-style guides")
    assert key_overlap({"regional"}, {"region"}) == 1  # a word and its derivation: one key
    assert key_overlap({"dock"}, {"docks", "dockyard"}) == 0  # short words must match exactly
    assert key_overlap({"regional", "desk"}, {"regions", "desk"}) == 2
    assert names_in("Inkwell prints it. Send it to Papyra via the Harbour office") == {"papyra", "harbour"}
