from pathlib import Path

import pytest

from pytest_pastbench.core.store import MAX_ENTRY_CHARS, Store
from pytest_pastbench.errors import StoreError


def test_write_search_read_update_delete_are_logged(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.session = 2
    first = store.write_memory("Halvorsen invoices go out on the 3rd business day", tags=["billing"])
    store.write_memory("The office plants are watered on Fridays")
    hits = store.search("when do Halvorsen invoices go out?")
    assert [h.id for h in hits] == [first.id]
    store.update_memory(first.id, "Halvorsen invoices go out on the 7th business day")
    assert store.read(first.id).text.endswith("7th business day")
    store.delete(first.id)
    assert store.search("Halvorsen invoices") == []
    ops = [(a.op, a.session) for a in store.access_log]
    assert ops == [
        ("write", 2),
        ("write", 2),
        ("search", 2),
        ("update", 2),
        ("read", 2),
        ("delete", 2),
        ("search", 2),
    ]
    assert store.access_log[2].returned_texts == ["Halvorsen invoices go out on the 3rd business day"]


def test_entries_are_files_and_survive_a_reopen(tmp_path: Path) -> None:
    store = Store(tmp_path)
    entry = store.write_memory("Deploys need two approvals")
    store.write_skill("rotate cert", ["open SEC ticket", "renew", "verify"], tags=["tls"])
    reopened = Store(tmp_path)
    assert [e.id for e in reopened.entries()] == [entry.id, "skill:rotate_cert"]
    assert reopened.write_memory("another").id == "m0002"  # ids continue, never reused


def test_search_ranks_rarer_overlap_higher_and_is_deterministic(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.write_memory("the report goes to finance")
    store.write_memory("the Brightwater report goes to @mira.k")
    hits = store.search("Brightwater report")
    assert hits[0].text.endswith("@mira.k")
    assert [h.id for h in store.search("Brightwater report")] == [h.id for h in hits]


def test_skills_are_searched_separately_and_replaced_by_name(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.write_memory("rotate the cert yearly")
    store.write_skill("rotate cert", ["a", "b"])
    store.write_skill("rotate cert", ["a", "b", "c"])
    skills = store.search("rotate cert", kind="skill")
    assert len(skills) == 1 and skills[0].text.endswith("3. c")
    assert [a.op for a in store.access_log][-2:] == ["update", "search"]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda s: s.write_memory(""), "non-empty"),
        (lambda s: s.write_memory("x" * (MAX_ENTRY_CHARS + 1)), "limit"),
        (lambda s: s.write_memory("ok", tags="notalist"), "tags"),
        (lambda s: s.read("m9999"), "no store entry"),
        (lambda s: s.update_memory("m9999", "x"), "no memory entry"),
        (lambda s: s.write_skill("../etc", ["x"]), "skill name"),
        (lambda s: s.write_skill("ok", []), "steps"),
        (lambda s: s.write_memory("ok", colour="red"), "unknown fields"),
    ],
)
def test_bad_operations_raise_store_errors(tmp_path: Path, call, message: str) -> None:
    with pytest.raises(StoreError, match=message):
        call(Store(tmp_path))


def test_clear_discards_everything(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.write_memory("secret plan")
    store.clear()
    assert store.entries(include_dead=True) == []
    assert list((tmp_path / "memory").iterdir()) == []
    assert store.write_memory("fresh").id == "m0001"


def test_search_matches_other_forms_of_a_word(tmp_path: Path) -> None:
    store = Store(tmp_path)
    battery = store.write_memory("Spare batteries for the scanners are in cabinet 4")
    ticket = store.write_memory("Anything ticketed after 17:00 waits for the morning shift")
    store.write_memory("The canteen closes at 15:00")
    assert [h.id for h in store.search("Where is the spare battery?")] == [battery.id]
    assert [h.id for h in store.search("when is a late ticket picked up")] == [ticket.id]


def test_search_finds_a_compound_by_its_parts_and_ranks_the_exact_compound_first(tmp_path: Path) -> None:
    store = Store(tmp_path)
    parts = store.write_memory("Ask Ines in ops about the 1234 pallets")
    exact = store.write_memory("OPS-1234 holds the pallet dispute")
    handle = store.write_memory("Escalations go to @ines.marchetti")
    assert [h.id for h in store.search("OPS-1234")][:2] == [exact.id, parts.id]
    assert handle.id in [h.id for h in store.search("Ines Marchetti")]


def test_min_overlap_counts_query_words_not_terms(tmp_path: Path) -> None:
    store = Store(tmp_path)
    entry = store.write_memory("OPS-1234 is closed")
    # One shared word (a compound of three terms) is one overlap: not two.
    assert store.matching_ids("OPS-1234 pallets", min_overlap=2) == []
    assert store.matching_ids("OPS-1234 closing", min_overlap=2) == [entry.id]
    assert store.search("OPS-1234 pallets", min_overlap=2) == []


def test_a_word_the_query_repeats_weighs_more(tmp_path: Path) -> None:
    # E1 asks with the request plus the held call's arguments: the request's words appear twice,
    # a listed note's words once, and the note about the request must come first.
    store = Store(tmp_path)
    store.write_memory("Payroll incidents go to HR-SYS")
    falcon = store.write_memory("Falcon warehouse incidents go to OPS-FALCON")
    assert store.search("falcon payroll")[0].id != falcon.id  # a tie: the older entry first
    assert store.search("falcon payroll falcon")[0].id == falcon.id
