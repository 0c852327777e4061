import pytest

from pytest_pastbench.core.world import World
from pytest_pastbench.errors import WorldError
from pytest_pastbench.protocols.past.schema import WorldSeed

SEED = WorldSeed.model_validate(
    {
        "now": "2026-03-11T09:00:00",
        "archive": [
            {"id": "LR-7", "title": "Heron retro", "body": "Rollback owner was @dana.p", "tags": ["heron"]},
            {"id": "LR-8", "title": "Kestrel retro", "body": "No rollback needed", "tags": ["kestrel"]},
        ],
        "tickets": [{"id": "T-001", "title": "Old", "queue": "OPS"}],
        "notes": [{"title": "Runbook", "body": "restart twice"}],
    }
)


def test_archive_search_finds_by_tag_and_read_returns_body() -> None:
    world = World(SEED)
    hits = world.archive_search("heron rollback")
    assert hits[0]["id"] == "LR-7"
    assert world.archive_read("LR-7")["body"] == "Rollback owner was @dana.p"


def test_each_world_starts_from_the_seed() -> None:
    first = World(SEED)
    first.tickets_create(title="New", queue="OPS", priority="P1", assignee="@x")
    first.notes_write("Runbook", "changed")
    second = World(SEED)
    assert [t["id"] for t in second.tickets_list()] == ["T-001"]
    assert second.notes_read("Runbook")["body"] == "restart twice"


def test_tickets_and_deploys_change_state_visible_in_snapshot() -> None:
    world = World(SEED, now="2026-03-12T10:00:00")
    ticket = world.tickets_create(title="Disk full", priority="P1", queue="OPS")
    world.tickets_update(ticket["id"], status="closed", comment="cleaned")
    world.deploys_create("payments", "v2.3")
    snap = world.snapshot()
    assert snap["tickets"][-1] == {**ticket, "status": "closed", "body": "cleaned"}
    assert snap["deploys"] == [
        {"service": "payments", "version": "v2.3", "at": "2026-03-12T10:00:00", "by": "agent"}
    ]


@pytest.mark.parametrize(
    "call",
    [
        lambda w: w.archive_search("the of and"),
        lambda w: w.archive_read("nope"),
        lambda w: w.notes_read("missing"),
        lambda w: w.tickets_create(title="x", priority="urgent"),
        lambda w: w.tickets_update("T-999", status="closed"),
        lambda w: w.deploys_create("", "v1"),
    ],
)
def test_service_refusals_are_world_errors(call) -> None:
    with pytest.raises(WorldError):
        call(World(SEED))


def test_archive_search_matches_other_forms_of_a_word() -> None:
    # The store's search terms: "rollbacks" finds "Rollback", "retros" finds "retro".
    hits = World(SEED).archive_search("heron retros rollbacks")
    assert [h["id"] for h in hits] == ["LR-7", "LR-8"]
    assert World(SEED).archive_search("lr 7")[0]["id"] == "LR-7"
