"""claims.read_claim: what an answer asserts, by principle (issue 27).

The answers here were written from the principles in docs/design.md §4, with entities of their
own (a berth, a permit code, a rota, a rate limit); the issue's own sentences follow at the end as
regression tests.
"""

from __future__ import annotations

import pytest

from pytest_pastbench.protocols.shared.claims import ClaimVerdict, Reading, read_claim
from pytest_pastbench.protocols.shared.matching import DATE_ORDER

BERTH = {"expected": ["Berth 7C"], "stale": ["Berth 2A"]}
PERMIT = {"expected": ["GX-5531"], "decoys": ["GX-5513", "GX-5351"]}
PERSON = {"expected": ["Ines Duarte", "@iduarte"], "stale": ["Tomas Berg", "@tberg"]}
PRIORITY = {"expected": ["P2"], "decoys": ["P4"]}


def read(answer: str, spec: dict, question: str = "") -> ClaimVerdict:
    return read_claim(
        answer, spec["expected"], spec.get("stale", ()), spec.get("decoys", ()), question=question
    )


def reading(answer: str, spec: dict, question: str = "") -> Reading:
    return read(answer, spec, question).reading


# --- a denied value is not asserted -------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        "The permit is not GX-5531.",
        "It's certainly not GX-5531.",
        "GX-5531 is wrong.",
        "GX-5531 isn't right, I'm afraid.",
        "Don't put GX-5531 on the form.",
        "It is not GX-5513, GX-5351 or GX-5531.",
        "Neither GX-5351 nor GX-5531.",
    ],
)
def test_a_denied_value_is_not_asserted(answer: str) -> None:
    assert reading(answer, PERMIT) in (Reading.DENIES, Reading.ASSERTS_OTHER, Reading.NO_ANSWER)
    assert reading(answer, PERMIT) is not Reading.ASSERTS_EXPECTED


@pytest.mark.parametrize(
    "answer",
    [
        "GX-5531 is not wrong, use it.",  # negations count by parity
        "The permit is GX-5531, not GX-5513.",
        "Not GX-5513 but GX-5531.",
        "Submit it no later than the permit GX-5531 allows.",
        "It is GX-5531; the ticket didn't cite it, which is why it bounced.",
    ],
)
def test_a_negation_of_something_else_leaves_the_value_asserted(answer: str) -> None:
    assert reading(answer, PERMIT) is Reading.ASSERTS_EXPECTED


def test_a_negated_bound_states_the_bound() -> None:
    limit = {"expected": ["300 rpm"]}
    assert reading("The API must not exceed 300 requests per minute.", limit) is Reading.ASSERTS_EXPECTED
    assert reading("Keep it to no more than 300 rpm.", limit) is Reading.ASSERTS_EXPECTED
    deadline = {"expected": ["2026-06-12"]}
    assert reading("File it no later than 12 June 2026.", deadline) is Reading.ASSERTS_EXPECTED


# --- a value named as old / replaced is not asserted as current, in the sentence's direction ------


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Berth 2A was replaced by Berth 7C.", Reading.ASSERTS_EXPECTED),
        ("Berth 7C was replaced by Berth 2A.", Reading.ASSERTS_OTHER),
        ("Berth 7C replaced Berth 2A last month.", Reading.ASSERTS_EXPECTED),
        ("Berth 2A replaced Berth 7C last month.", Reading.ASSERTS_OTHER),
        ("The harbour master replaced Berth 2A with Berth 7C.", Reading.ASSERTS_EXPECTED),
        ("The harbour master replaced Berth 7C with Berth 2A.", Reading.ASSERTS_OTHER),
        ("Unloading moved from Berth 2A to Berth 7C.", Reading.ASSERTS_EXPECTED),
        ("Unloading moved from Berth 7C to Berth 2A.", Reading.ASSERTS_OTHER),
        ("Berth 2A → Berth 7C", Reading.ASSERTS_EXPECTED),
        ("Berth 7C -> Berth 2A", Reading.ASSERTS_OTHER),
        ("Go to Berth 7C instead of Berth 2A.", Reading.ASSERTS_EXPECTED),
        ("Go to Berth 2A rather than Berth 7C.", Reading.ASSERTS_OTHER),
        ("Berth 7C, not Berth 2A.", Reading.ASSERTS_EXPECTED),
        ("Berth 2A, not Berth 7C.", Reading.ASSERTS_OTHER),
        ("Berth 2A is closed for dredging, so tie up at Berth 7C.", Reading.ASSERTS_EXPECTED),
        ("Berth 7C is closed for dredging, so tie up at Berth 2A.", Reading.ASSERTS_OTHER),
        ("It used to be Berth 2A; now it is Berth 7C.", Reading.ASSERTS_EXPECTED),
        ("Berth 2A is no longer in use. Berth 7C is.", Reading.ASSERTS_EXPECTED),
        ("The previous berth, Berth 2A, has been retired; use Berth 7C.", Reading.ASSERTS_EXPECTED),
        ("Berth 7C took over from Berth 2A.", Reading.ASSERTS_EXPECTED),
    ],
)
def test_replacement_follows_the_sentence(answer: str, expected: Reading) -> None:
    assert reading(answer, BERTH) is expected


@pytest.mark.parametrize(
    "answer",
    [
        "Berth 7C has been decommissioned.",
        "Berth 7C is no longer valid.",
        "Berth 7C expired last week.",
        "Berth 7C is shut until further notice.",
    ],
)
def test_the_right_value_named_as_old_is_no_answer(answer: str) -> None:
    assert reading(answer, BERTH) is Reading.DENIES


def test_old_and_current_cover_is_read_per_clause() -> None:
    answer = "Ines Duarte approves now; Tomas Berg's interim approval period has ended."
    assert reading(answer, PERSON) is Reading.ASSERTS_EXPECTED
    swapped = "Tomas Berg approves now; Ines Duarte's interim approval period has ended."
    assert reading(swapped, PERSON) is not Reading.ASSERTS_EXPECTED


def test_a_value_that_ends_in_the_future_is_still_current() -> None:
    # "closes" (present: it still holds) is not "closed".
    assert reading("Berth 7C closes at 18:00 on weekdays.", BERTH) is Reading.ASSERTS_EXPECTED


# --- a contrast or exception is not asserted --------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        "Normally a typo fix is P4, but release blockers are P2.",
        "Usually P4; this one is P2.",
        "It's P2 here, though it would typically be P4.",
        "By default tickets get P4. This one gets P2.",
    ],
)
def test_a_contrast_is_not_asserted(answer: str) -> None:
    assert reading(answer, PRIORITY) is Reading.ASSERTS_EXPECTED


def test_the_contrast_direction_matters() -> None:
    assert reading("Normally P2, but this one is P4.", PRIORITY) is Reading.ASSERTS_OTHER


def test_a_lone_usual_value_is_what_the_answer_says() -> None:
    assert reading("Usually it is P2.", PRIORITY) is Reading.ASSERTS_EXPECTED


# --- two candidates without commitment are a hedge -----------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        "Either GX-5531 or GX-5513.",
        "GX-5531 or maybe GX-5351.",
        "Could be GX-5531, possibly GX-5513.",
        "I'm not sure whether it's GX-5531 or GX-5351.",
        # the rival need not be a listed decoy: any value of the same shape
        "Either GX-5531 or GX-5987.",
        "Perhaps GX-4410, perhaps GX-5531.",
    ],
)
def test_a_hedge_is_no_answer(answer: str) -> None:
    assert reading(answer, PERMIT) is Reading.HEDGES


@pytest.mark.parametrize(
    ("answer", "spec"),
    [
        ("It's either Ines Duarte or Priya Nair.", PERSON),
        ("Either 300 rpm or 450 rpm, I can't say.", {"expected": ["300 rpm"]}),
        ("Maybe 14 May 2026, or maybe 21 May 2026.", {"expected": ["2026-05-14"]}),
        ("It could be 09:30 or 10:15.", {"expected": ["09:30"]}),
        (
            "Either the fire certificate or the noise permit, not sure which.",
            {"expected": ["fire certificate"]},
        ),
    ],
)
def test_a_hedge_between_values_of_any_shape(answer: str, spec: dict) -> None:
    assert reading(answer, spec) is Reading.HEDGES


def test_a_hedge_resolved_by_a_commitment_is_an_answer() -> None:
    answer = "It was either GX-5531 or GX-5513; I checked, the correct one is GX-5531."
    assert reading(answer, PERMIT) is Reading.ASSERTS_EXPECTED


def test_an_alias_in_brackets_is_no_rival() -> None:
    assert reading("Ask Ines Duarte (@iduarte).", PERSON) is Reading.ASSERTS_EXPECTED


def test_two_plain_claims_are_undecided_not_guessed() -> None:
    verdict = read("The permit is GX-5531. The permit is GX-5513.", PERMIT)
    assert verdict.reading is Reading.UNDECIDED and "GX-5513" in verdict.detail


# --- the right value in any common form ---------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Charge it to cost centre: 8812.", "cost center 8812"),
        ("Cost center — 8812", "cost centre 8812"),
        ("Gate - 12", "Gate 12"),
        ("Due 17/09/2026.", "2026-09-17"),
        ("Due 09/17/2026.", "2026-09-17"),
        ("Due on the seventeenth of September.", "2026-09-17"),
        ("The call is at 2 pm.", "14:00"),
        ("The call is at 2.45pm.", "14:45"),
        ("The call is at 14.45.", "14:45"),
        ("Throttle at 450 rpm.", "450 requests a minute"),
        ("Throttle at 450 requests per minute.", "450 rpm"),
        ("Throttle at 450 req/min.", "450 requests per minute"),
        ("A fee of 1.5 per cent.", "1.5%"),
        ("A fee of 1.5 percent.", "1.5 %"),
        ("Budget 3.4k.", "3400"),
        ("Budget €3.4k.", "3,400 EUR"),
        ("The licence is valid.", "license"),
        ("The colour key is green.", "color key"),
        ("We organised it.", "organized"),
        ("The permit is GX5531.", "GX-5531"),
        ("Timeout: 45 s", "45 seconds"),
    ],
)
def test_the_right_value_in_another_form_is_the_value(answer: str, expected: str) -> None:
    assert read_claim(answer, [expected]).reading is Reading.ASSERTS_EXPECTED


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Gate 120", "Gate 12"),
        ("Permit GX-55310", "GX-5531"),
        ("It costs 21,000.", "2100"),
        ("P21", "21"),
        ("The call is at 2 pm.", "14:30"),
        ("Due 17/08/2026.", "2026-09-17"),
    ],
)
def test_a_near_miss_is_not_the_value(answer: str, expected: str) -> None:
    assert read_claim(answer, [expected]).reading is not Reading.ASSERTS_EXPECTED


def test_an_ambiguous_numeric_date_is_undecided_unless_the_locale_decides() -> None:
    answer = "The audit is on 05/06/2026."
    assert read_claim(answer, ["2026-06-05"]).reading is Reading.UNDECIDED
    token = DATE_ORDER.set("DMY")
    try:
        assert read_claim("The audit is on 05/06/2026.", ["2026-06-05"]).reading is Reading.ASSERTS_EXPECTED
        assert (
            read_claim("The audit is on 05/06/2026.", ["2026-05-06"]).reading is not Reading.ASSERTS_EXPECTED
        )
    finally:
        DATE_ORDER.reset(token)


# --- no answer ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer", ["", "   ", "I could not find it.", "Sorry, I don't know which permit that is."]
)
def test_refusals_and_empty_answers_are_no_answer(answer: str) -> None:
    assert reading(answer, PERMIT) is Reading.NO_ANSWER


def test_the_question_restated_is_no_answer() -> None:
    question = "Is the permit GX-5531 or GX-5513?"
    assert reading("Is the permit GX-5531 or GX-5513?", PERMIT, question) is Reading.NO_ANSWER
    assert reading("GX-5531.", PERMIT, question) is Reading.ASSERTS_EXPECTED


def test_a_value_the_question_names_is_no_rival() -> None:
    spec = {"expected": ["Berth 7C"]}
    question = "Berth 4D is full. Which berth does the Aurora use?"
    assert reading("Berth 4D is full, or so they say; the Aurora uses Berth 7C.", spec, question) is (
        Reading.ASSERTS_EXPECTED
    )


def test_read_claim_needs_an_expected_form() -> None:
    with pytest.raises(ValueError):
        read_claim("anything", [])


# --- the issue's own examples (regression) ----------------------------------------------------------

ISSUE = [
    ("It is definitely not WV-2207.", ["WV-2207"], [], ["WV-2270"], False),
    (
        "It is not WV-2270, WV-2206, WV-2107 or WV-2207.",
        ["WV-2207"],
        [],
        ["WV-2270", "WV-2206", "WV-2107"],
        False,
    ),
    ("Dock 4B was replaced by Dock 11.", ["Dock 4B"], ["Dock 11"], [], False),
    ("Dock 11 is shut for resurfacing, so unload at Dock 4B.", ["Dock 4B"], ["Dock 11"], [], True),
    (
        "Lena Fischer signs off; Bola Adeyemi's temporary cover has ended.",
        ["Lena Fischer"],
        ["Bola Adeyemi"],
        [],
        True,
    ),
    (
        "Give it P1. Normally a wording tweak would be P3, but Harbour-plan tickets are always P1.",
        ["P1"],
        [],
        ["P3"],
        True,
    ),
    ("Cost centre: 4417", ["4417"], [], [], True),
    ("cost center 4417", ["cost centre 4417"], [], [], True),
    ("24/03/2026", ["2026-03-24"], [], [], True),
    ("11.30am", ["11:30"], [], [], True),
    ("240 rpm", ["240 requests a minute"], [], [], True),
    ("0.5 per cent", ["0.5%"], [], [], True),
    ("1.2k", ["1200"], [], [], True),
    ("either WV-2207 or WV-2208", ["WV-2207"], [], ["WV-2270"], False),
]


@pytest.mark.parametrize(("answer", "expected", "stale", "decoys", "correct"), ISSUE)
def test_the_issues_examples(answer: str, expected: list, stale: list, decoys: list, correct: bool) -> None:
    verdict = read_claim(answer, expected, stale, decoys)
    assert (verdict.reading is Reading.ASSERTS_EXPECTED) is correct, verdict


# --- scope: what a negation, a past marker or a replacement verb reaches ------------------------


@pytest.mark.parametrize(
    ("answer", "spec"),
    [
        # a negated past event reports what did not happen; the value is still what is needed
        ("The request bounced: the form didn't quote the DPIA reference.", {"expected": ["DPIA reference"]}),
        # "no X report": an absence, not a rejection of X
        ("Procurement stopped it: no ISO 27001 certificate on file.", {"expected": ["ISO 27001"]}),
        # a negation inside a relative clause restricts a noun
        ("The portal drops files that are not in PDF/A format.", {"expected": ["PDF/A"]}),
        # a rule of conduct: the act itself is the value
        ("Press statements never name the patient.", {"expected": ["name the patient"]}),
        # a negation does not reach across a subordinate clause
        ("Do not start the cutover until the queue depth is under 200.", {"expected": ["200"]}),
        # a predicate is about its subject, not about a value governed by a preposition
        ("Anything over 40 kg is refused at the counter.", {"expected": ["40 kg"]}),
        ("The booking at Berth 7C was cancelled by the agent, but the berth stays ours.", BERTH),
        # a date is when something ended, not an old date
        ("The exemption lapsed on 3 August 2026.", {"expected": ["2026-08-03"]}),
        # a replacement verb in another clause does not reach the value
        ("The alarm is muted under MUTE-7731 while the sensor is replaced.", {"expected": ["MUTE-7731"]}),
        # "before" as a preposition is not "used before"
        ("Attach the load plan before departure.", {"expected": ["load plan"]}),
    ],
)
def test_cues_reach_only_what_they_scope(answer: str, spec: dict) -> None:
    assert reading(answer, spec) is Reading.ASSERTS_EXPECTED


@pytest.mark.parametrize(
    ("answer", "spec"),
    [
        ("It's not the load plan.", {"expected": ["load plan"]}),
        ("Don't use the load plan any more.", {"expected": ["load plan"]}),
        ("The load plan is no longer required.", {"expected": ["load plan"]}),
    ],
)
def test_a_plain_word_value_can_still_be_denied(answer: str, spec: dict) -> None:
    assert reading(answer, spec) is Reading.DENIES


def test_a_statement_of_what_holds_from_now_on_commits() -> None:
    spec = {"expected": ["Ines Duarte"], "stale": ["Tomas Berg"]}
    answer = "Tomas Berg approves refunds. From 1 July, Ines Duarte approves refunds."
    assert reading(answer, spec) is Reading.ASSERTS_EXPECTED
    assert (
        reading("Ines Duarte approves refunds. As of this week Tomas Berg does.", spec)
        is Reading.ASSERTS_OTHER
    )


def test_names_and_identifiers_are_matched_as_spelled() -> None:
    # morphology is for words: "returns" does not name "Returnly", "restores" is not "drill-restore"
    assert (
        read_claim("Customers send their returns by post.", ["Returnly"]).reading
        is not Reading.ASSERTS_EXPECTED
    )
    assert read_claim("The drill restores last night's snapshot.", ["drill-restore"]).reading is not (
        Reading.ASSERTS_EXPECTED
    )
    assert read_claim("Restore into drill-restore.", ["drill-restore"]).reading is Reading.ASSERTS_EXPECTED


# --- the issue's examples on the built-in data, through the offline path (answer_scores) ------------


def _episode(pattern: str, episode_id: str):
    from pytest_pastbench.protocols.past.family_files import load_family
    from pytest_pastbench.resources import families_dir

    path = next(families_dir().glob(f"*/{pattern}*.yaml"))
    return next(e for e in load_family(path)[0].episodes if e.id == episode_id)


@pytest.mark.parametrize(
    ("family", "episode", "answer", "credit"),
    [
        ("PG04", "ep01", "It is definitely not WV-2207.", False),
        ("PG04", "ep01", "It is not WV-2270, WV-2206, WV-2107 or WV-2207.", False),
        ("SM03", "ep01", "Dock 4B was replaced by Dock 11.", False),
        ("SM03", "ep01", "Dock 11 is shut for resurfacing, so unload at Dock 4B.", True),
        ("SM06", "ep01", "Lena Fischer signs off; Bola Adeyemi's temporary cover has ended.", True),
        (
            "PC03",
            "ep08",
            "Give it P1. Normally a wording tweak would be P3, but Harbour-plan tickets are always P1.",
            True,
        ),
    ],
)
def test_the_issues_examples_on_the_built_in_data(
    family: str, episode: str, answer: str, credit: bool
) -> None:
    from pytest_pastbench.protocols.past.dataset.shortcuts import answer_scores

    best = max(s for _, s in answer_scores(_episode(family, episode), answer))
    assert (best > 0) is credit


def test_a_replacement_noun_reaches_only_its_own_clause() -> None:
    assert reading("Berth 7C is the replacement for Berth 2A.", BERTH) is Reading.ASSERTS_EXPECTED
    assert reading("Berth 2A's replacement is Berth 7C.", BERTH) is Reading.ASSERTS_EXPECTED
    assert reading("Berth 2A is the replacement for Berth 7C.", BERTH) is Reading.ASSERTS_OTHER
    spec = {"expected": ["Harlow Road 12"]}
    assert reading("Send a replacement pump for the depot, delivery to Harlow Road 12.", spec) is (
        Reading.ASSERTS_EXPECTED
    )


def test_mentions_read_one_value_on_its_own() -> None:
    from pytest_pastbench.protocols.shared.claims import mentions

    assert [m.marked_old for m in mentions("Normally Berth 7C.", "Berth 7C")] == [False]
    assert [m.marked_old for m in mentions("Berth 7C was retired.", "Berth 7C")] == [True]
    assert [m.marked_old for m in mentions("Use Berth 2A instead of Berth 7C.", "Berth 7C")] == [True]


def test_a_value_only_asked_about_is_not_claimed() -> None:
    assert reading("Berth 2A? No, Berth 7C.", BERTH) is Reading.ASSERTS_EXPECTED
    assert reading("Is it Berth 7C?", BERTH) is Reading.NO_ANSWER


def test_the_clause_after_a_turn_is_the_claim() -> None:
    assert (
        reading("Berth 2A is still on the old chart, but Berth 7C is correct.", BERTH)
        is Reading.ASSERTS_EXPECTED
    )
    assert (
        reading("Berth 7C is still on the old chart, but Berth 2A is correct.", BERTH)
        is Reading.ASSERTS_OTHER
    )


def test_a_past_state_is_old() -> None:
    assert reading("Berth 7C is right; Berth 2A was right until June.", BERTH) is Reading.ASSERTS_EXPECTED


# --- a leading answer commits; a rival named only later as context is no rival (issue 27 item 1) ---

CARRIER = {"expected": ["Northline"], "stale": ["Kestrel Freight"]}
CASE = {"expected": ["INC-4410"], "decoys": ["INC-4401"]}
SLOT = {"expected": ["slot three"], "decoys": ["slot one"]}
BUILD = {"expected": ["2.8.5"], "stale": ["2.8.4"]}
GATE = {"expected": ["Gate 3"], "decoys": ["Gate 9"]}
OWNER = {"expected": ["Owen Hale"], "stale": ["Priya Nair"]}


@pytest.mark.parametrize(
    ("answer", "spec"),
    [
        ("Ship with Northline. The discount deal with Kestrel Freight ended in March.", CARRIER),
        ("Reopen INC-4410, the payroll case. INC-4401 is the VPN one, a different issue.", CASE),
        ("Use slot three. Slot one is taken by the audit job.", SLOT),
        ("Deploy 2.8.5. The 2.8.4 build lacks the patch.", BUILD),
        ("Northline. Kestrel Freight was the carrier in the spring.", CARRIER),
        ("Gate 3. Gate 9 is a different one.", GATE),
    ],
)
def test_a_leading_answer_commits_and_later_context_is_no_rival(answer: str, spec: dict) -> None:
    assert reading(answer, spec) is Reading.ASSERTS_EXPECTED, read(answer, spec)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Ship with Northline. Or maybe Kestrel Freight.", Reading.HEDGES),
        ("Ship with Northline. Actually, Kestrel Freight.", Reading.ASSERTS_OTHER),
        ("Ship with Northline or Kestrel Freight. Either works.", Reading.HEDGES),
        ("Ship with Northline. Kestrel Freight.", Reading.UNDECIDED),
        ("Ship with Northline. The carrier is Kestrel Freight.", Reading.UNDECIDED),
        ("Northline. Kestrel Freight is also fine.", Reading.UNDECIDED),
        ("Ship with Northline. Kestrel Freight replaced it last week.", Reading.ASSERTS_OTHER),
        ("Ship with Northline. Hmm, it's Kestrel Freight.", Reading.UNDECIDED),
        ("Ship with Northline. I'd go with Kestrel Freight.", Reading.UNDECIDED),
        ("Ship with Northline. Kestrel Freight is the new carrier.", Reading.ASSERTS_OTHER),
        # the rival leads: a later sentence about the expected value does not undo it
        ("Ship with Kestrel Freight. Northline ended in March.", Reading.ASSERTS_OTHER),
    ],
)
def test_a_later_sentence_that_offers_the_rival_again_still_counts(answer: str, expected: Reading) -> None:
    assert reading(answer, CARRIER) is expected, read(answer, CARRIER)


def test_a_rival_before_the_instruction_is_not_later_context() -> None:
    answer = "The notes mention Gate 9 for loading. Use Gate 3."
    assert reading(answer, GATE) is not Reading.ASSERTS_EXPECTED


# --- a rival said to have ended, gone, be restricted or be another thing is not current -------------


@pytest.mark.parametrize(
    ("answer", "spec"),
    [
        ("The carrier is Northline; Kestrel Freight was dropped.", CARRIER),
        ("Kestrel Freight only applied during the pilot. Use Northline.", CARRIER),
        ("Kestrel Freight was only for the trial period; Northline is the carrier.", CARRIER),
        ("Kestrel Freight has been terminated, so it is Northline.", CARRIER),
        ("Gate 9 is archived; use Gate 3.", GATE),
        ("Gate 9 is exit-only now, so enter through Gate 3.", GATE),
        ("It's Gate 3, since Gate 9 doesn't have a ramp.", GATE),
        ("Gate 3 is the one; Gate 9 is used by deliveries.", GATE),
        ("Priya Nair has left; ask Owen Hale.", OWNER),
    ],
)
def test_a_rival_named_as_ended_or_unavailable_is_not_asserted(answer: str, spec: dict) -> None:
    assert reading(answer, spec) is Reading.ASSERTS_EXPECTED, read(answer, spec)


@pytest.mark.parametrize(
    "answer",
    [
        "Northline was dropped; use Kestrel Freight.",  # the truth reversed
        "Northline only applied during the pilot; Kestrel Freight is the carrier.",
    ],
)
def test_the_expected_value_named_as_ended_still_fails(answer: str) -> None:
    assert reading(answer, CARRIER) is not Reading.ASSERTS_EXPECTED


def test_an_end_in_a_subordinate_clause_or_a_noun_is_not_the_values() -> None:
    assert reading("Use Gate 3; it is open until the end of May.", GATE) is Reading.ASSERTS_EXPECTED
    spec = {"expected": ["Gate 3"]}
    assert reading("Gate 3 stays open until the pilot ended.", spec) is Reading.ASSERTS_EXPECTED


# --- "from X to Y" with any change verb; a person replaced -----------------------------------------


@pytest.mark.parametrize(
    ("answer", "spec", "expected"),
    [
        ("They re-budgeted rack R-4 from 3 kW to 5 kW.", {"expected": ["5 kW"], "stale": ["3 kW"]}, True),
        ("They re-budgeted rack R-4 from 5 kW to 3 kW.", {"expected": ["5 kW"], "stale": ["3 kW"]}, False),
        ("It was bumped from P4 to P2.", PRIORITY, True),
        ("It was bumped from P2 to P4.", PRIORITY, False),
        ("Attendance climbed from 40 to 65.", {"expected": ["65"], "stale": ["40"]}, True),
        ("P4 -> P2", PRIORITY, True),
        ("P2 → P4", PRIORITY, False),
        # a range is no change: both ends stand
        ("The desk is open from 09:00 to 17:00.", {"expected": ["09:00"]}, True),
    ],
)
def test_from_x_to_y_marks_x_old(answer: str, spec: dict, expected: bool) -> None:
    assert (reading(answer, spec) is Reading.ASSERTS_EXPECTED) is expected, read(answer, spec)


@pytest.mark.parametrize(
    ("answer", "correct"),
    [
        ("Priya Nair has left; Owen Hale took over.", True),
        ("Owen Hale took over from Priya Nair.", True),
        ("Priya Nair handed over to Owen Hale.", True),
        ("Owen Hale has left; Priya Nair took over.", False),
        ("Priya Nair took over from Owen Hale.", False),
        ("Owen Hale handed over to Priya Nair.", False),
    ],
)
def test_a_person_replaced_follows_the_sentence(answer: str, correct: bool) -> None:
    assert (reading(answer, OWNER) is Reading.ASSERTS_EXPECTED) is correct, read(answer, OWNER)


ENDED_OR_AWAY = [
    ("Northline; Kestrel Freight stopped serving the route in May.", CARRIER),
    ("Kestrel Freight is out: it went bankrupt. Northline.", CARRIER),
    ("Ship with Northline — Kestrel Freight was the interim carrier during the strike.", CARRIER),
    ("Gate 3. Gate 9 is reserved for deliveries.", GATE),
    ("Gate 3 — Gate 9 is staff-only.", GATE),
    ("Build 2.8.5; 2.8.4 is missing the patch.", BUILD),
    ("Priya Nair is on leave; Owen Hale covers.", OWNER),
    ("Priya Nair retired last month, so Owen Hale signs off.", OWNER),
]


@pytest.mark.parametrize(("answer", "spec"), ENDED_OR_AWAY)
def test_more_ways_a_rival_is_out_of_the_running(answer: str, spec: dict) -> None:
    assert reading(answer, spec) is Reading.ASSERTS_EXPECTED, read(answer, spec)


@pytest.mark.parametrize(("answer", "spec"), ENDED_OR_AWAY)
def test_the_same_sentences_with_the_roles_swapped_fail(answer: str, spec: dict) -> None:
    # the value the sentence takes out of the running is now the expected one: never credited
    rival = [*spec.get("stale", ()), *spec.get("decoys", ())]
    swapped = {"expected": rival, "stale": spec["expected"]}
    assert reading(answer, swapped) is not Reading.ASSERTS_EXPECTED, read(answer, swapped)


@pytest.mark.parametrize(
    ("text", "old"),
    [
        # A clause-final adverb of the past dates the clause's state, whatever preposition governs
        # the value: a lone note "was on X before; now Y" keeps X as history.
        ("The freeze was on Thursday before; now Friday.", True),
        ("The freeze is on Friday now; it was on Thursday before.", True),
        ("The desk was in Thursday's room previously; now Hall C.", True),
        # Reversed: "before" that opens a phrase, or no adverb of the past, leaves X current; and a
        # predicate of the past still does not reach a governed date ("expired on X").
        ("The freeze is on Thursday before the release.", False),
        ("The freeze is on Thursday.", False),
        ("The licence expired on Thursday.", False),
    ],
)
def test_a_clause_final_adverb_of_the_past_marks_a_governed_value_old(text: str, old: bool) -> None:
    from pytest_pastbench.protocols.shared.claims import mentions

    assert [m.marked_old for m in mentions(text, "Thursday")] == [old]


# --- an event to come or a condition is not an ending; a note in brackets; an opener of the past ---


@pytest.mark.parametrize(
    "answer",
    [
        # a clause of time in the present tense is awaited, not over
        "Shipping restarts as soon as firmware 3.4.1 is out.",
        "We can sign once firmware 3.4.1 has been released.",
        "Hold the order until firmware 3.4.1 ships.",
        # a present "only when / only during" restricts the rule as it stands
        "The depot refunds firmware 3.4.1 only when the unit fails within a week.",
        "Firmware 3.4.1 is only installed during the maintenance window.",
    ],
)
def test_an_awaited_event_or_a_present_condition_is_no_ending(answer: str) -> None:
    spec = {"expected": ["firmware 3.4.1"]}
    assert reading(answer, spec) is Reading.ASSERTS_EXPECTED, read(answer, spec)


@pytest.mark.parametrize(
    "answer",
    [
        # a past tense in the same clauses still ends the value
        "We moved on after firmware 3.4.1 was withdrawn.",
        "Firmware 3.4.1 only applied while the recall lasted.",
        "Firmware 3.4.1 is out of service.",
    ],
)
def test_the_same_clauses_in_the_past_still_end_the_value(answer: str) -> None:
    spec = {"expected": ["firmware 3.4.1"]}
    assert reading(answer, spec) is not Reading.ASSERTS_EXPECTED, read(answer, spec)


def test_an_awaited_rival_is_a_condition_not_the_answer() -> None:
    # "until Gate 9 reopens": Gate 9 is what is waited for, Gate 3 what to use now
    assert reading("Use Gate 3 until Gate 9 reopens.", GATE) is Reading.ASSERTS_EXPECTED
    assert reading("Use Gate 9 until Gate 3 reopens.", GATE) is not Reading.ASSERTS_EXPECTED


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Berth 2A (old), Berth 7C (new).", Reading.ASSERTS_EXPECTED),
        ("Berth 2A (retired) and Berth 7C (current)", Reading.ASSERTS_EXPECTED),
        ("Tie up at Berth 7C; Berth 2A (no longer used) is being dredged.", Reading.ASSERTS_EXPECTED),
        ("Berth 7C (old), Berth 2A (new).", Reading.ASSERTS_OTHER),
        ("Berth 7C (previous)", Reading.DENIES),
    ],
)
def test_a_note_in_brackets_is_said_of_the_value_before_it(answer: str, expected: Reading) -> None:
    assert reading(answer, BERTH) is expected, read(answer, BERTH)


@pytest.mark.parametrize(
    ("text", "old"),
    [
        ("Before, the audit was on Tuesday; it moved since.", True),
        ("Previously the audit ran every quarter on Tuesday at the main office.", True),
        ("Formerly, audits happened on Tuesday.", True),
        # not an opener of the past: a preposition, or "now" between
        ("Before the audit, check in on Tuesday.", False),
        ("Before, we guessed; now the audit is on Tuesday.", False),
        ("Earlier the audit was moved, and now it is on Tuesday.", False),
    ],
)
def test_a_sentence_opened_by_an_adverb_of_the_past_dates_its_clause(text: str, old: bool) -> None:
    from pytest_pastbench.protocols.shared.claims import mentions

    assert [m.marked_old for m in mentions(text, "Tuesday")] == [old]


# --- more ways a clause takes a value out of the running, and cues bound to their own clause -------


@pytest.mark.parametrize(
    ("answer", "spec"),
    [
        # "used to be" is a past state
        ("Ship with Northline. It used to be Kestrel Freight.", CARRIER),
        # a phrasal verb of ending
        ("Gate 3. The Gate 9 plan fell through last week.", GATE),
        ("Northline; the Kestrel Freight contract was called off.", CARRIER),
        # the value as the object of a past verb of ending or departure
        ("Owen Hale signs off. We dropped Priya Nair from the rota in May.", OWNER),
        ("Go through Gate 3; security closed Gate 9 on Monday.", GATE),
        # a rival being worked on is not usable now
        ("Use Gate 3 while Gate 9 is being resurfaced.", GATE),
    ],
)
def test_a_rival_ended_in_other_words_is_not_asserted(answer: str, spec: dict) -> None:
    assert reading(answer, spec) is Reading.ASSERTS_EXPECTED, read(answer, spec)


@pytest.mark.parametrize(
    ("answer", "spec"),
    [
        ("Ship with Kestrel Freight. It used to be Northline.", CARRIER),
        ("Gate 9. The Gate 3 plan fell through last week.", GATE),
        ("Go through Gate 9; security closed Gate 3 on Monday.", GATE),
    ],
)
def test_the_same_endings_said_of_the_expected_value_fail(answer: str, spec: dict) -> None:
    assert reading(answer, spec) is not Reading.ASSERTS_EXPECTED, read(answer, spec)


def test_an_adjective_of_age_modifies_the_noun_after_it() -> None:
    # "by the old pump house" says nothing of Gate 3; "Gate 3 is old" and "Gate 3 (old)" do
    assert reading("Gate 3, next to the old pump house.", GATE) is Reading.ASSERTS_EXPECTED
    assert reading("Gate 3 is the old one.", {"expected": ["Gate 3"]}) is not Reading.ASSERTS_EXPECTED


def test_now_belongs_to_the_copula_right_before_it() -> None:
    # "X is now Y" retires X; a "now" of a later clause ("it's 16:10 now") does not
    spec = {"expected": ["16:00"]}
    answer = "The desk closes at 16:00 during the audit, and it's 16:10 now, so try tomorrow."
    assert reading(answer, spec) is Reading.ASSERTS_EXPECTED, read(answer, spec)
    assert reading("Gate 3 is now Gate 9.", GATE) is not Reading.ASSERTS_EXPECTED


def test_a_cue_of_the_present_commits_its_own_clause() -> None:
    spec = {"expected": ["16:00"], "stale": ["15:00"]}
    assert reading("15:00 until May, 16:00 since.", spec) is Reading.ASSERTS_EXPECTED
    assert reading("16:00 until May, 15:00 since.", spec) is not Reading.ASSERTS_EXPECTED
