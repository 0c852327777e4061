import pytest

from pytest_pastbench.errors import WorldError
from pytest_pastbench.protocols.past.schema import WorldSeed
from pytest_pastbench.protocols.past.world import World

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


def test_a_session_world_revises_and_adds_records_for_that_session_only() -> None:
    from pytest_pastbench.protocols.past.schema import Episode

    episode = Episode.model_validate(
        {
            "id": "ep",
            "world": SEED.model_dump(),
            "sessions": [
                {"stage": "learn", "user": "remember"},
                {
                    "stage": "eval_near",
                    "user": "who owns the rollback?",
                    "now": "2026-03-20T09:00:00",
                    "checks": [{"type": "value", "value": "@lee.k", "evidence": "present"}],
                    "world": {
                        "archive": [{"id": "LR-7", "title": "Heron retro", "body": "Rollback owner: @lee.k"}],
                        "tickets": [{"id": "T-050", "title": "Heron follow-up", "queue": "OPS"}],
                        "notes": [{"title": "Handover", "body": "ask @lee.k"}],
                        "deploys": [{"service": "heron", "version": "v9", "at": "2026-03-19T08:00:00"}],
                    },
                },
            ],
        }
    )
    learn, evaluation = episode.sessions
    world = World(episode.session_world(evaluation))
    assert world.now == "2026-03-20T09:00:00"
    # A revision takes its original's place; the other records keep the seed's order.
    assert [d["id"] for d in world.archive] == ["LR-7", "LR-8"]
    assert world.archive_read("LR-7")["body"] == "Rollback owner: @lee.k"
    assert world.archive_search("heron rollback")[0]["snippet"] == "Rollback owner: @lee.k"
    assert [t["id"] for t in world.tickets_list()] == ["T-001", "T-050"]
    assert world.notes_list() == ["Handover", "Runbook"]
    assert [d["version"] for d in world.deploys_list()] == ["v9"]
    before = World(episode.session_world(learn))
    assert before.archive_read("LR-7")["body"] == "Rollback owner was @dana.p"
    assert [t["id"] for t in before.tickets_list()] == ["T-001"]
    assert before.now == SEED.now


def test_the_engine_runs_each_session_in_its_own_world(tmp_path) -> None:
    from pytest_pastbench.agents.base import Budgets
    from pytest_pastbench.core.store import Store
    from pytest_pastbench.core.trace import TraceRecorder
    from pytest_pastbench.models.direct import PolicyModel
    from pytest_pastbench.protocols.past.engine import _run_session
    from pytest_pastbench.protocols.past.schema import Episode
    from tests.adversarial.agents import EmptyAgent

    episode = Episode.model_validate(
        {
            "id": "ep",
            "world": SEED.model_dump(),
            "sessions": [
                {"stage": "learn", "user": "remember"},
                {
                    "stage": "eval_near",
                    "user": "anything new?",
                    "checks": [{"type": "contains", "values": ["x"]}],
                    "world": {"tickets": [{"id": "T-050", "title": "New", "queue": "OPS"}]},
                },
            ],
        }
    )
    runs = [
        _run_session(
            i,
            s,
            episode,
            Store(tmp_path / str(i)),
            EmptyAgent(),
            PolicyModel("blind"),
            Budgets(),
            TraceRecorder(),
        )
        for i, s in enumerate(episode.sessions)
    ]
    assert [[t["id"] for t in r.world_after["tickets"]] for r in runs] == [["T-001"], ["T-001", "T-050"]]
