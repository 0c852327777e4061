"""Update: a fact, rule or procedure is stated, later corrected; evals need the current version.

The correction repeats the subject of the stale statement (so it can supersede it) but never
the old value; eval prompts name neither value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .build import (
    Draw,
    Episode,
    Extras,
    FamilySpec,
    distractor,
    episode,
    eval_far,
    eval_near,
    fact,
    handle,
    learn,
    only,
    templates,
    ticket,
    with_extras,
)
from .procedural import entities


def correction_template(sc: dict[str, Any]) -> Callable[[Draw, Extras], Episode]:
    def build(d: Draw, x: Extras) -> Episode:
        e = entities(d)
        if "handles" in sc:
            old, new = (handle(p) for p in d.unique("PEOPLE", 2))
        elif "fixed" in sc:
            old, new = sc["fixed"]
        elif "queues" in sc:
            old, new = d.unique("QUEUES", 2)
        else:
            old, new = d.sample(sc["values"], 2)
        e.update(old=old, new=new)
        stale = sc["stale"].format(**e)
        correction = sc["correction"].format(**e)
        checks = [only(new, old)]
        if sc.get("ticket"):
            checks = [ticket(queue=new), only(new, old)]
        return with_extras(
            d,
            x,
            episode(
                sc["title"].format(**e),
                [
                    learn(sc["task"].format(**e), stale, now="2026-02-03T10:00:00"),
                    learn(sc["task2"].format(**e), correction, now="2026-02-20T15:00:00"),
                    distractor(d),
                    eval_near(sc["near"].format(**e), checks),
                    eval_far(sc["far"].format(**e), checks, now="2026-04-01T09:00:00"),
                ],
                [fact(correction, *[t.format(**e).lower() for t in sc["terms"]], new.lower())],
                stale_facts=[fact(stale, *[t.format(**e).lower() for t in sc["terms"]], old.lower())],
            ),
            learn_index=0,
        )

    return build


def sop_patch_template(sc: dict[str, Any]) -> Callable[[Draw, Extras], Episode]:
    """A numbered procedure, later re-issued with one step replaced (same intro, so it supersedes)."""

    def build(d: Draw, x: Extras) -> Episode:
        e = entities(d)
        name = sc["name"].format(**e)
        intro = f"The {name} runbook goes like this:"
        old_steps = [s.format(**e) for s in sc["steps"]]
        new_steps = list(old_steps)
        new_steps[sc["patched"]] = sc["new_step"].format(**e)
        old_kw, new_kw = sc["old_kw"], sc["new_kw"]

        def numbered(steps: list[str]) -> str:
            return intro + "\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))

        key = f"The revised {name} runbook: " + "; then ".join(s[0].lower() + s[1:] for s in new_steps) + "."
        checks = [only(new_kw, old_kw)]
        return with_extras(
            d,
            x,
            episode(
                sc["title"].format(**e),
                [
                    learn(sc["task"].format(**e), numbered(old_steps), now="2026-02-03T10:00:00"),
                    learn(sc["task2"].format(**e), numbered(new_steps), now="2026-02-20T15:00:00"),
                    distractor(d),
                    eval_near(sc["near"].format(**e), checks),
                    eval_far(sc["far"].format(**e), checks, now="2026-04-01T09:00:00"),
                ],
                [fact(key, name.lower(), new_kw)],
                stale_facts=[fact(old_steps[sc["patched"]], old_kw)],
            ),
            learn_index=0,
        )

    return build


C = correction_template
P = sop_patch_template
ORDINALS = ["3rd", "5th", "7th", "8th", "10th", "12th"]

FACTS = [
    C(
        {
            "title": "Invoicing day for {client}",
            "values": [f"{o} business day" for o in ORDINALS],
            "stale": "The {client} invoices go out on the {old} of the month.",
            "correction": "Correction from their AP team: the {client} invoices go out on the {new} of the month.",
            "terms": ["{client} invoices"],
            "task": "Can you help me draft the invoice reminder schedule for our top accounts? {client} and {client2} both pay by bank transfer.",
            "task2": "I'm preparing the billing calendar for the spring. Payroll runs on the 25th and VAT is due on the 10th.",
            "near": "When should the {client} invoices go out this month?",
            "far": "I'm scheduling next month's billing run. Which day do the {client} invoices need to be sent?",
        }
    ),
    C(
        {
            "title": "Connection limit of the {svc} staging database",
            "values": [
                "80 connections",
                "120 connections",
                "150 connections",
                "200 connections",
                "60 connections",
            ],
            "stale": "The {svc} staging database is capped at {old}.",
            "correction": "After the resize, the {svc} staging database is capped at {new}, updated to match the new instance.",
            "terms": ["{svc} staging database"],
            "task": "Can you help me size the connection pools for the {svc} load test? We run {n} workers.",
            "task2": "Can you draft the change note for this week's staging maintenance? Two resizes and a kernel patch.",
            "near": "How many connections can the {svc} staging database take? I'm setting the pool size.",
            "far": "What's the connection cap on the {svc} staging database these days?",
        }
    ),
    C(
        {
            "title": "Meeting room for the {month} all-hands",
            "values": [
                "Tejo room on the 4th floor",
                "Alfama auditorium on the ground floor",
                "Douro room on the 2nd floor",
                "Belem hall in the annex",
                "Sintra room on the 6th floor",
            ],
            "stale": "The {month} all-hands for {client} takes place in the {old}.",
            "correction": "Correction: the {month} all-hands for {client} moved to the {new} because of renovations.",
            "terms": ["{month} all-hands"],
            "task": "Can you draft the invitation for the {month} all-hands at {client}? Agenda: results, hiring plan, Q&A.",
            "task2": "Can you help me write the facilities request for chairs and a second microphone for the {month} session?",
            "near": "Which room goes in the calendar invite for the {month} all-hands at {client}?",
            "far": "Visitors are joining the {month} all-hands at {client}. Where should they go?",
        }
    ),
]

RULES = [
    C(
        {
            "title": "Queue for {svc} access requests",
            "queues": True,
            "ticket": True,
            "values": [],
            "stale": "Access requests for {svc} go through the {old} queue.",
            "correction": "Going forward, access requests for {svc} go through the {new} queue after the security reorg.",
            "terms": ["access requests for {svc}"],
            "task": "Can you write the onboarding note for {person}? They need laptop, SSO and {svc} dashboards.",
            "task2": "Can you summarise the security team's reorg announcement for my team? Two new leads, one merged team.",
            "near": "Please open a ticket for {person2}'s read access to {svc}.",
            "far": "Raise a ticket so the new analyst gets {svc} access.",
        }
    ),
    C(
        {
            "title": "Approval threshold for {client} discounts",
            "values": ["10 percent", "15 percent", "20 percent", "25 percent", "5 percent"],
            "stale": "Discounts for {client} above {old} need the sales director's approval.",
            "correction": "From now on, discounts for {client} above {new} need the sales director's approval.",
            "terms": ["discounts for {client}"],
            "task": "Can you draft the quote cover letter for {client}? Three-year term, {n}0 seats.",
            "task2": "Can you help me summarise the new sales policy memo? It covers travel, gifts and approvals.",
            "near": "I want to give {client} a bigger discount on the renewal. At what point do I need the director?",
            "far": "What discount can I offer {client} on my own?",
        }
    ),
    C(
        {
            "title": "Retention rule for {svc} logs",
            "values": ["30 days", "90 days", "14 days", "180 days", "7 days"],
            "stale": "Application logs of {svc} are kept for {old}.",
            "correction": "The retention policy has changed: application logs of {svc} are kept for {new}.",
            "terms": ["logs of {svc}"],
            "task": "Can you help me fill in the data inventory for {svc}? It stores sessions, logs and audit events.",
            "task2": "Can you summarise the privacy team's newsletter for engineers? It covers DPIAs and retention.",
            "near": "A customer asks how long {svc} keeps application logs. What do I say?",
            "far": "For the data inventory: what's the retention of the {svc} application logs?",
        }
    ),
]

EXCEPTIONS = [
    C(
        {
            "title": "Code review exception for {svc} expired",
            "fixed": ["with one reviewer", "need two reviewers again"],
            "stale": "Until March 1, {svc} hotfixes may merge {old}.",
            "correction": "The {svc} hotfix exception has expired: from now on {svc} hotfixes {new}.",
            "terms": ["{svc} hotfix"],
            "task": "Can you help me write the incident follow-up for {svc}? The fix needed {n} hotfixes in a week.",
            "task2": "Can you draft the engineering update for this month? Two launches and a new intern cohort.",
            "near": "I have a small {svc} hotfix ready and one approval. Can I merge it?",
            "far": "How many reviewers does a {svc} hotfix need?",
        }
    ),
    C(
        {
            "title": "Travel exception for the {client} project expired",
            "fixed": ["business class", "economy like everyone else"],
            "stale": "Until the pilot ends, the {client} project team may book {old} on flights over 4 hours.",
            "correction": "The {client} project travel exception has ended: from now on the {client} project team books {new}.",
            "terms": ["{client} project"],
            "task": "Can you help me plan the trip to {client}'s headquarters for the pilot kickoff? Three people, two nights.",
            "task2": "Can you summarise the travel policy update for the team channel?",
            "near": "I'm booking a 6-hour flight for the {client} project review. Which class can I book?",
            "far": "What are the flight rules for the {client} project team these days?",
        }
    ),
    C(
        {
            "title": "Deploy-window exception for {svc} expired",
            "fixed": ["may deploy on fridays after 15:00", "follows the normal window"],
            "stale": "Until the migration finishes, {svc} {old}.",
            "correction": "The {svc} Friday deploy exception has lapsed: from now on {svc} {new} with no Friday afternoon slots.",
            "terms": ["{svc}", "friday"],
            "task": "Can you help me plan the {svc} migration timeline? {n} phases over six weeks.",
            "task2": "Can you write the release calendar summary for this quarter?",
            "near": "Can we schedule the {svc} rollout for this Friday at 16:00?",
            "far": "What deploy windows apply to {svc} right now?",
        }
    ),
]

SOP_PATCHES = [
    P(
        {
            "title": "Revised failover runbook for {svc}",
            "name": "{svc} failover",
            "task": "Can you help me write the failover drill summary for {svc}? It took {n}0 minutes.",
            "task2": "After the drill review we changed one step. Can you update the team wiki page?",
            "steps": [
                "Announce the drill in the incident channel",
                "Promote the standby with the manual script",
                "Repoint the connection string",
                "Verify writes from the canary job",
            ],
            "patched": 1,
            "new_step": "Promote the standby with the orchestrator command",
            "old_kw": "manual script",
            "new_kw": "orchestrator command",
            "near": "We're running the {svc} failover tonight. What's the procedure?",
            "far": "Walk me through the {svc} failover, please.",
        }
    ),
    P(
        {
            "title": "Revised refund runbook for {client}",
            "name": "{client} refund",
            "task": "Can you draft the reply to {client}'s refund request? They were charged twice.",
            "task2": "Finance changed how approvals work. Can you help me update the support macro?",
            "steps": [
                "Check the charge in the payment console",
                "Get approval from the team lead by email",
                "Issue the refund to the original card",
                "Note the refund id in the ticket",
            ],
            "patched": 1,
            "new_step": "Get approval in the finance approvals tool",
            "old_kw": "by email",
            "new_kw": "finance approvals tool",
            "near": "{client} wants another refund. What's the process?",
            "far": "How do we process a {client} refund these days?",
        }
    ),
    P(
        {
            "title": "Revised secret rotation runbook for {svc}",
            "name": "{svc} key rotation",
            "task": "Can you help me write the change note for rotating the {svc} signing keys?",
            "task2": "Security asked for a change after the audit. Can you help me write the announcement?",
            "steps": [
                "Generate the new key in the vault",
                "Share the key id in the team chat",
                "Roll the key to half of the pods",
                "Revoke the old key after 24 hours",
            ],
            "patched": 1,
            "new_step": "Record the key id in the change ticket only",
            "old_kw": "team chat",
            "new_kw": "change ticket only",
            "near": "It's time for the {svc} key rotation. What are the steps?",
            "far": "Someone new is doing the {svc} key rotation. What should they follow?",
        }
    ),
]

OWNERS = [
    C(
        {
            "title": "New owner of {svc}",
            "handles": True,
            "values": [],
            "stale": "The {svc} service is owned by {old} on the platform team.",
            "correction": "After the reorg, the {svc} service is owned by {new}, who has replaced the previous owner.",
            "terms": ["{svc} service"],
            "task": "Can you help me map owners for the services in our dependency graph? Start with {svc} and {svc2}.",
            "task2": "Can you summarise the engineering reorg memo for my team?",
            "near": "Who should review a breaking change to {svc}?",
            "far": "{svc} is paging at night. Whom do I escalate to?",
        }
    ),
    C(
        {
            "title": "New account manager for {client}",
            "handles": True,
            "values": [],
            "stale": "The account manager for {client} is {old}.",
            "correction": "From now on, the account manager for {client} is {new}.",
            "terms": ["account manager for {client}"],
            "task": "Can you draft the QBR invite for {client}? Topics: usage, roadmap, renewal.",
            "task2": "Can you help me announce the new territory split to the sales team?",
            "near": "{client} wants to discuss an upsell. Who should join the call?",
            "far": "Who is {client}'s account manager?",
        }
    ),
    C(
        {
            "title": "New data steward for the {svc} dataset",
            "handles": True,
            "values": [],
            "stale": "Requests to share the {svc} dataset are approved by the data steward {old}.",
            "correction": "The data steward role changed to {new}: requests to share the {svc} dataset are approved by {new}.",
            "terms": ["{svc} dataset"],
            "task": "Can you help me write the data catalogue entry for the {svc} dataset? It holds {n} tables.",
            "task2": "Can you summarise the data governance meeting notes?",
            "near": "A partner wants an extract of the {svc} dataset. Who approves?",
            "far": "Who is the steward for the {svc} dataset?",
        }
    ),
]

PRICES = [
    C(
        {
            "title": "Courier rate for {client}",
            "values": [
                "EUR 4.20 per parcel",
                "EUR 4.80 per parcel",
                "EUR 5.10 per parcel",
                "EUR 3.90 per parcel",
                "EUR 5.60 per parcel",
            ],
            "stale": "Our courier charges {client} shipments at {old}.",
            "correction": "The courier updated to {new} for {client} shipments, so our courier charges {client} shipments at {new}.",
            "terms": ["{client} shipments"],
            "task": "Can you help me estimate shipping costs for {client}'s spring order? About {n}00 parcels.",
            "task2": "Can you summarise the logistics vendor review?",
            "near": "How much will {client}'s next batch of parcels cost to ship per parcel?",
            "far": "Finance asks for the per-parcel courier rate for {client}.",
        }
    ),
    C(
        {
            "title": "Seat price for {svc} licences",
            "values": [
                "EUR 18 per seat",
                "EUR 22 per seat",
                "EUR 25 per seat",
                "EUR 15 per seat",
                "EUR 30 per seat",
            ],
            "stale": "Licences for the {svc} console cost {old} per month.",
            "correction": "The vendor changed to new pricing: licences for the {svc} console cost {new} per month.",
            "terms": ["{svc} console"],
            "task": "Can you help me budget tooling for next year? The {svc} console, CI minutes and the wiki.",
            "task2": "Can you summarise the vendor's pricing email for the team?",
            "near": "We're adding five people to the {svc} console. What's the monthly price per licence?",
            "far": "What does one {svc} console licence cost us?",
        }
    ),
    C(
        {
            "title": "Day rate of the {client} consultants",
            "values": [
                "EUR 950 per day",
                "EUR 1,100 per day",
                "EUR 1,250 per day",
                "EUR 800 per day",
                "EUR 1,400 per day",
            ],
            "stale": "Consultants from {client} bill {old}.",
            "correction": "Correction after the contract renewal: consultants from {client} bill {new}.",
            "terms": ["consultants from {client}"],
            "task": "Can you help me draft the statement of work with {client} for a {n}-week engagement?",
            "task2": "Can you help me summarise the procurement renewal outcomes?",
            "near": "How much should I budget per day for {client}'s consultants?",
            "far": "What day rate do we pay {client} consultants?",
        }
    ),
]

ENDPOINTS = [
    C(
        {
            "title": "Reports endpoint for {svc}",
            "values": [
                "reports.internal/v1",
                "reports.internal/v2",
                "analytics.internal/export",
                "bi.internal/reports",
                "warehouse.internal/api",
            ],
            "stale": "The {svc} usage reports are pulled from {old}.",
            "correction": "The {svc} usage reports moved to {new}.",
            "terms": ["{svc} usage reports"],
            "task": "Can you help me write the analytics onboarding doc? It covers dashboards and the {svc} usage reports.",
            "task2": "Can you summarise the data platform changelog?",
            "near": "Where do I pull the {svc} usage reports from?",
            "far": "My script for the {svc} usage reports needs a URL. Which one?",
        }
    ),
    C(
        {
            "title": "Status page of {client}",
            "values": [
                "status.partner-one.io",
                "health.partner-one.io",
                "uptime.partner-one.io",
                "status.partner-two.io",
                "ops.partner-two.io",
            ],
            "stale": "The {client} integration status is published on {old}.",
            "correction": "The {client} integration status moved to {new}.",
            "terms": ["{client} integration status"],
            "task": "Can you write the runbook section on third-party outages? {client} is our biggest dependency.",
            "task2": "Can you summarise the partner newsletter for the support team?",
            "near": "Our {client} integration is failing. Where can I check their integration status?",
            "far": "Which page shows the {client} integration status?",
        }
    ),
    C(
        {
            "title": "Artifact registry for {svc}",
            "values": [
                "registry.old-ci.local",
                "artifacts.ci.local",
                "pkg.build.local",
                "images.build.local",
                "repo.ci2.local",
            ],
            "stale": "The {svc} build artifacts are pushed to {old}.",
            "correction": "The {svc} build artifacts moved to {new} with the CI migration.",
            "terms": ["{svc} build artifacts"],
            "task": "Can you help me document the {svc} build pipeline? It builds, tests and publishes.",
            "task2": "Can you draft the CI migration announcement?",
            "near": "Where should the {svc} build artifacts go in my new pipeline?",
            "far": "Which registry holds the {svc} build artifacts?",
        }
    ),
]


FAMILIES = [
    FamilySpec(
        "fact_correction",
        "update",
        "Replacing a fact that was later corrected",
        "A fact is stated in one learn session (an invoicing day, a connection limit, a meeting room) and "
        "corrected in a later one. Evals must use the corrected value and never the stale one.",
        8,
        templates(FACTS, ["invoicing_day", "connection_limit", "meeting_room"]),
    ),
    FamilySpec(
        "rule_migration",
        "update",
        "Following a rule after it migrated",
        "A routing or policy rule (a ticket queue, a discount threshold, a retention period) moves; evals must "
        "apply the new rule. Tickets filed to the old queue fail.",
        7,
        templates(RULES, ["access_queue", "discount_threshold", "log_retention"]),
    ),
    FamilySpec(
        "exception_expiry",
        "update",
        "Noticing that a temporary exception expired",
        "A temporary exception (one reviewer for hotfixes, business-class travel, Friday deploys) is granted, "
        "then declared expired. Evals ask as if the exception still held.",
        7,
        templates(EXCEPTIONS, ["review_exception", "travel_exception", "deploy_window_exception"]),
    ),
    FamilySpec(
        "sop_patch_update",
        "update",
        "Using the patched version of a procedure",
        "A numbered runbook is taught, then re-issued with one step replaced. Evals must give the patched "
        "step, not the old one.",
        8,
        templates(SOP_PATCHES, ["failover", "refund", "key_rotation"]),
    ),
    FamilySpec(
        "owner_handover",
        "update",
        "Routing to the new owner after a handover",
        "Ownership of a service, an account or a dataset passes to someone else; evals must name the new owner.",
        7,
        templates(OWNERS, ["service_owner", "account_manager", "data_steward"]),
    ),
    FamilySpec(
        "price_change",
        "update",
        "Quoting the current price",
        "A rate (courier, licence, consultant day rate) is stated and later changed; evals must quote the new rate.",
        7,
        templates(PRICES, ["courier_rate", "licence_price", "day_rate"]),
    ),
    FamilySpec(
        "endpoint_migration",
        "update",
        "Using a moved endpoint",
        "Where something lives (a reports endpoint, a status page, an artifact registry) changes; evals must "
        "point to the new location.",
        7,
        templates(ENDPOINTS, ["reports_endpoint", "status_page", "artifact_registry"]),
    ),
]
