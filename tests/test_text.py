import itertools

from pytest_pastbench.core.text import idf_overlap_score


def test_idf_overlap_score_does_not_depend_on_the_order_of_the_words() -> None:
    # With these frequencies a plain left-to-right sum differs in the last bit between orders
    # (3.5300302535051236 vs 3.530030253505124): a set's hash-seeded order then reorders ties.
    frequency = {"alpha": 1, "beta": 2, "gamma": 8}
    scores = {idf_overlap_score(order, 5, frequency) for order in itertools.permutations(frequency)}
    assert len(scores) == 1


def test_idf_overlap_score_weights_rare_words_higher() -> None:
    frequency = {"rare": 1, "common": 9}
    assert idf_overlap_score(["rare"], 10, frequency) > idf_overlap_score(["common"], 10, frequency)


def test_a_sentence_ends_after_a_closing_quote() -> None:
    from pytest_pastbench.core.text import sentences

    text = 'She wrote: "The old path is gone. Use the new one." Right now I am offline.'
    assert sentences(text) == [
        'She wrote: "The old path is gone.',
        'Use the new one."',
        "Right now I am offline.",
    ]
