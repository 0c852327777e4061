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


def test_search_terms_fold_morphology_case_and_punctuation() -> None:
    from pytest_pastbench.core.text import search_terms

    assert search_terms("Batteries") == search_terms("battery")
    assert search_terms("ticketed") == search_terms("tickets") == search_terms("ticket")
    assert search_terms("Rollbacks, rolled back!") == search_terms("rollback rolled back")
    # A compound stays whole (an exact id match weighs most) and gives its parts as terms too.
    assert search_terms("OPS-1234") == ["ops-1234", *search_terms("ops"), "1234"]
    assert set(search_terms("Ines Marchetti")) <= set(search_terms("@ines.marchetti"))
    # Ids, versions and numbers are never stemmed.
    assert "v2.3.1" in search_terms("v2.3.1") and "1234" in search_terms("1234s 1234")


def test_term_groups_keep_one_group_per_query_word() -> None:
    from pytest_pastbench.core.text import matched_words, search_terms, term_groups

    groups = term_groups("the OPS-1234 batteries")
    assert len(groups) == 2  # "the" is a stopword; a compound is one word however many terms
    assert matched_words(groups, frozenset(search_terms("ops desk"))) == 1
    assert matched_words(groups, frozenset(search_terms("battery for ops"))) == 2


def test_stems_agree_with_the_graders_tokens() -> None:
    # The grader's normaliser (matching.tokens) splits at punctuation like term_groups does, so
    # stemming its tokens gives the search's stems: one notion of "the same word" for both.
    from pytest_pastbench.core.text import search_terms, stem
    from pytest_pastbench.protocols.shared.matching import tokens

    text = "Escalated batteries go to the DC-FAC queue"
    graded = {stem(t) for t in tokens(text) if t.isalpha()}
    searched = {t for t in search_terms(text) if t.isalpha()}
    assert searched <= graded


def test_an_abbreviations_period_ends_no_sentence() -> None:
    from pytest_pastbench.core.text import sentences

    # a title before a name, a Latin or editorial abbreviation, a label before a number
    text = (
        "Send it to Dr. Amara Osei and Mrs. Holt, i.e. the reviewers. "
        "Budget approx. 300 hours, cf. the plan in Sec. 4 vs. last year. Room No. 12 is booked."
    )
    assert sentences(text) == [
        "Send it to Dr. Amara Osei and Mrs. Holt, i.e. the reviewers.",
        "Budget approx. 300 hours, cf. the plan in Sec. 4 vs. last year.",
        "Room No. 12 is booked.",
    ]


def test_a_word_that_only_looks_like_an_abbreviation_still_ends_a_sentence() -> None:
    from pytest_pastbench.core.text import sentences

    # "No." as an answer, "etc." at the end, a label without its number
    assert sentences("No. The kiln is booked. Pots, glazes etc. Then fire it. See fig. Done.") == [
        "No.",
        "The kiln is booked.",
        "Pots, glazes etc.",
        "Then fire it.",
        "See fig.",
        "Done.",
    ]


def test_the_grader_reads_an_abbreviation_inside_one_sentence() -> None:
    # matching.doc places sentence breaks by the same rule, so a name after a title stays in the
    # sentence that names it
    from pytest_pastbench.protocols.shared.matching import BREAK, doc

    assert BREAK not in doc("Ask Prof. Ilse Brandt, e.g. by phone").surface
    assert doc("Ask Prof. Brandt. Then wait").surface.count(BREAK) == 1
