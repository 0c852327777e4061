"""Their RAG baseline: blocks of 12 with the store frozen, top 8 by BM25 over the task text."""

from __future__ import annotations

from pytest_pastbench.protocols.stream.servelearn.engine import Experience, run_scenario
from pytest_pastbench.protocols.stream.servelearn.rag import RagLearner, bm25_top, task_text

from .helpers import ScriptedAgent, scenarios


def served(position: int, text: str, reward: float = 1.0) -> Experience:
    instruction = f"Current timestamp: {position}\n\n{text}"
    return Experience(
        instruction, position, reward, f"INSTRUCTION: {instruction}\nScore: {reward * 100:g}/100."
    )


def test_the_timestamp_line_is_not_part_of_the_task_text() -> None:
    assert task_text("Current timestamp: 9\n\nCancel #W1.") == "Cancel #W1."
    assert task_text("Cancel #W1.") == "Cancel #W1."


def test_the_store_is_frozen_within_a_block_of_twelve() -> None:
    rag = RagLearner()
    for position in range(1, 12):
        rag.update(served(position, f"cancel order number {position}"))
    assert rag.context("Current timestamp: 12\n\ncancel order") == ""  # nothing added yet
    rag.update(served(12, "return the scarf"))
    assert len(rag.cases) == 12 and rag.pending == []
    shown = rag.context("Current timestamp: 13\n\nplease return the scarf")
    assert shown.startswith("# Past cases\n")
    assert "## Case observed at stream position 12 — Score: 100/100.\n" in shown


def test_only_cases_with_a_positive_score_are_shown_best_first_and_ties_older_first() -> None:
    rag = RagLearner(block=1)
    for position in range(1, 21):
        topic = "exchange desk fan" if position % 5 == 0 else f"refund gift card {position}"
        rag.update(served(position, f"{topic} request", reward=position % 2))
    hits = rag.search("exchange the desk fan")
    assert [h.timestamp for h in hits] == [5, 10, 15, 20]  # the other sixteen share no query word
    rag.update(served(21, "exchange desk fan desk fan request"))
    assert rag.search("desk fan")[0].timestamp == 21  # more matches rank first


def test_a_windows_last_short_block_ends_before_its_test_tasks() -> None:
    rag = RagLearner()
    for position in range(1, 7):  # a window of six serving tasks: half a block
        rag.update(served(position, f"cancel order {position}"))
    assert rag.context("Current timestamp: 7\n\ncancel order") == ""  # still serving: frozen
    test_task = rag.context("Current timestamp: 6\n\ncancel order")  # the window's test batch
    assert len(rag.cases) == 6 and rag.pending == [] and "stream position 6" in test_task


def test_bm25_idf_stays_positive_for_a_term_in_most_documents() -> None:
    documents = [["fan"], ["fan"], ["fan"], ["scarf"]]
    assert bm25_top(["fan"], documents, 8) == [0, 1, 2]  # ln(1 + ...) > 0 even for df > N/2


def test_test_tasks_retrieve_but_are_never_added() -> None:
    scenario = scenarios()["retail_l1"]
    rag = RagLearner(block=1)
    run_scenario(scenario, ScriptedAgent(), learner=rag)
    assert [c.instruction for c in rag.cases] == [t.instruction for t in scenario.serving]
