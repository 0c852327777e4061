"""Procedural: procedures shown while doing a task, reused on a new instance of the task."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .build import (
    Draw,
    Episode,
    Extras,
    FamilySpec,
    contains,
    distractor,
    episode,
    eval_far,
    eval_near,
    fact,
    handle,
    in_order,
    learn,
    templates,
    with_extras,
)


def entities(d: Draw) -> dict[str, Any]:
    """Fresh names for one episode; ``*2`` variants are the new instance the eval asks about."""
    svc, svc2 = d.unique("SERVICES", 2)
    host, host2 = d.sample(d.pools.HOSTS, 2)
    client, client2 = d.unique("COMPANIES", 2)
    person, person2 = d.unique("PEOPLE", 2)
    return {
        "svc": svc,
        "svc2": svc2,
        "host": host,
        "host2": host2,
        "client": client,
        "client2": client2,
        "person": person,
        "person2": person2,
        "who": handle(person),
        "n": d.number(3, 9),
        "ver": f"{d.number(2, 7)}.{d.number(0, 12)}.0",
        "ver2": f"{d.number(8, 12)}.{d.number(0, 9)}.0",
        "month": d.pick(d.pools.MONTHS),
    }


def steps_template(scenario: dict[str, Any]) -> Callable[[Draw, Extras], Episode]:
    """A worked task whose second turn lists the numbered steps; evals ask to redo it elsewhere."""

    def build(d: Draw, x: Extras) -> Episode:
        e = entities(d)
        name = scenario["name"].format(**e)
        steps = [s.format(**e) for s in scenario["steps"]]
        kws = [k.format(**e) for k in scenario["kws"]]
        intro = scenario["intro"].format(name=name, **e)
        numbered = "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))
        key = f"The {name} goes: " + "; then ".join(s[0].lower() + s[1:] for s in steps) + "."
        checks = [contains(*kws[:2]), contains(*kws[2:]), in_order(*kws)]
        return with_extras(
            d,
            x,
            episode(
                scenario["title"].format(**e),
                [
                    learn(scenario["task"].format(**e), f"{intro}\n{numbered}"),
                    distractor(d),
                    eval_near(scenario["near"].format(**e), checks),
                    eval_far(
                        scenario["far"].format(**e),
                        [contains(*kws[:2]), contains(*kws[2:]), in_order(*kws)],
                        now="2026-04-14T10:00:00",
                    ),
                ],
                [fact(key, scenario["key_term"].format(**e), *kws)],
            ),
            learn_index=0,
        )

    return build


def rules_template(scenario: dict[str, Any]) -> Callable[[Draw, Extras], Episode]:
    """Rules induced from a reviewer's corrections on a worked example (no list is ever given)."""

    def build(d: Draw, x: Extras) -> Episode:
        e = entities(d)
        rules = [r.format(**e) for r in scenario["rules"]]
        kws = [k.format(**e) for k in scenario["kws"]]
        return with_extras(
            d,
            x,
            episode(
                scenario["title"].format(**e),
                [
                    learn(scenario["task"].format(**e), " ".join(rules[:2])),
                    learn(scenario["task2"].format(**e), rules[2]),
                    distractor(d),
                    eval_near(
                        scenario["near"].format(**e), [contains(kws[0]), contains(kws[1]), contains(kws[2])]
                    ),
                    eval_far(
                        scenario["far"].format(**e),
                        [contains(kws[0]), contains(kws[1]), contains(kws[2])],
                        now="2026-04-21T10:00:00",
                    ),
                ],
                [fact(rule, scenario["subject"], kw) for rule, kw in zip(rules, kws, strict=True)],
            ),
            learn_index=0,
        )

    return build


S = steps_template
R = rules_template

SOP = [
    S(
        {
            "title": "Rebuilding a lagging read replica of {svc}",
            "name": "read replica rebuild",
            "task": "The read replica of {svc} on {host} is {n} hours behind. Can you help me write the status update for the team channel?",
            "intro": "We fixed it, and this is how the {name} went so we can repeat it:",
            "steps": [
                "Drain reads away from {host} at the load balancer",
                "Take a fresh base backup from the primary",
                "Restore it with pg_basebackup into a clean data directory",
                "Re-enable reads after lag stays under 5 seconds for 10 minutes",
            ],
            "kws": ["drain reads", "base backup", "pg_basebackup", "under 5 seconds"],
            "key_term": "read replica rebuild",
            "near": "The read replica of {svc2} on {host2} has fallen far behind too. Can you walk me through the read replica rebuild?",
            "far": "New on-call here: what's our read replica rebuild procedure for {svc2}?",
        }
    ),
    S(
        {
            "title": "Quarterly access review for {svc}",
            "name": "quarterly access review",
            "task": "Can you help me draft the email that kicks off the quarterly access review of {svc}? Reviewers get {n} working days.",
            "intro": "Thanks, sent. For the next quarterly access review, here is the order we used:",
            "steps": [
                "Export the group memberships from the identity provider",
                "Send each manager only their own reports' accounts",
                "Revoke every account nobody confirmed within 5 working days",
                "File the signed export in the compliance folder",
            ],
            "kws": ["group memberships", "own reports", "revoke every account", "compliance folder"],
            "key_term": "quarterly access review",
            "near": "It's that time again: the quarterly access review for {svc2}. How do we run it?",
            "far": "Our auditor asks how the quarterly access review works for {svc2}. Can you describe it?",
        }
    ),
    S(
        {
            "title": "Customer data export for {client}",
            "name": "customer data export",
            "task": "{client} asked for a full export of their account data under their contract. Can you draft the acknowledgement email?",
            "intro": "Done. Here's the customer data export sequence we followed, for next time:",
            "steps": [
                "Confirm the request came from a registered admin contact",
                "Run the export job with PII columns encrypted",
                "Upload the archive to a one-time link that expires after 72 hours",
                "Log the export in the DPA register",
            ],
            "kws": ["registered admin", "pii columns encrypted", "72 hours", "dpa register"],
            "key_term": "customer data export",
            "near": "{client2} wants a customer data export as well. What are the steps?",
            "far": "Legal asks how we handle a customer data export request from {client2}. Can you summarise our process?",
        }
    ),
]

RULES = [
    R(
        {
            "title": "Review rules for schema migration PRs ({svc})",
            "subject": "migration",
            "task": "Can you review this schema migration PR for {svc}? It adds a column and backfills it in one transaction.",
            "rules": [
                "The reviewer bounced it because every migration PR needs a tested rollback script.",
                "She also wanted the backfill split out, since a migration PR never backfills in the same transaction as the DDL.",
                "This one came back because a migration PR has to state the expected lock time in its description.",
            ],
            "task2": "Second round on the {svc} migration: I split the backfill. Can you check the description again?",
            "kws": ["rollback script", "same transaction", "lock time"],
            "near": "Please review my new migration PR for {svc2}: it renames a column used by two reports.",
            "far": "I'm about to open a migration PR that drops an old index on {svc2}. Anything I should include?",
        }
    ),
    R(
        {
            "title": "Review rules for release notes ({svc})",
            "subject": "release notes",
            "task": "Can you tighten the release notes for {svc} {ver}? Three fixes and one new export option.",
            "rules": [
                "The editor sent them back: release notes lead with customer impact, never with ticket numbers.",
                "She also said release notes always name the upgrade deadline for deprecated options.",
                "The last round failed because release notes must link the migration guide whenever an option is renamed.",
            ],
            "task2": "Next version of the {svc} release notes is drafted. Can you polish it?",
            "kws": ["customer impact", "upgrade deadline", "migration guide"],
            "near": "Draft the release notes for {svc2} {ver2}, which renames two settings.",
            "far": "I need release notes for a small {svc2} patch. What should they contain?",
        }
    ),
    R(
        {
            "title": "Approval rules for vendor invoices ({client})",
            "subject": "invoice",
            "task": "Can you check this invoice from {client} before I approve it? It totals {n},400 EUR for March consulting.",
            "rules": [
                "Finance rejected it: an invoice is only approved against a matching purchase order number.",
                "They also want every invoice from a consultancy to include timesheets signed by the project lead.",
                "Another one bounced because an invoice in a foreign currency needs the conversion rate of the invoice date.",
            ],
            "task2": "I got the corrected invoice from {client}. Can you give it one more look?",
            "kws": ["purchase order", "timesheets", "conversion rate"],
            "near": "{client2} sent an invoice for April consulting. Can I approve it?",
            "far": "What does an invoice from {client2} need before it can be approved?",
        }
    ),
]

FAILURE = [
    S(
        {
            "title": "Recovering a stuck queue consumer on {svc}",
            "name": "stuck consumer recovery",
            "task": "{svc} stopped processing its queue an hour ago and {n} thousand messages piled up. Can you draft the incident note?",
            "intro": "We got it moving again. For the next stuck consumer recovery, this is what worked:",
            "steps": [
                "Pause the producers with the feature flag",
                "Dump the head message to find the poison payload",
                "Move the poison message to the dead-letter queue",
                "Restart consumers one at a time and watch the lag",
            ],
            "kws": ["pause the producers", "poison payload", "dead-letter queue", "one at a time"],
            "key_term": "stuck consumer",
            "near": "{svc2} has a stuck consumer and messages are piling up. What do we do?",
            "far": "The consumers on {svc2} froze overnight. How do we recover?",
        }
    ),
    S(
        {
            "title": "Recovering from an expired certificate on {host}",
            "name": "expired certificate recovery",
            "task": "The TLS certificate on {host} expired and {svc} clients got handshake errors for {n}0 minutes. Can you write the summary?",
            "intro": "Thanks. Writing down the expired certificate recovery so we don't improvise next time:",
            "steps": [
                "Issue a short-lived certificate from the internal CA",
                "Push it with the cert-sync job rather than by hand",
                "Reload the proxy instead of restarting it",
                "Add the new expiry to the renewal calendar",
            ],
            "kws": ["internal ca", "cert-sync", "reload the proxy", "renewal calendar"],
            "key_term": "expired certificate",
            "near": "Alerts say the certificate on {host2} has expired. How do we recover?",
            "far": "If a certificate expires on {host2} over the weekend, what is the recovery?",
        }
    ),
    S(
        {
            "title": "Clearing a full disk on build agents ({host})",
            "name": "full disk cleanup",
            "task": "Builds for {svc} failed all morning because the build agent {host} ran out of disk. Can you draft a note for developers?",
            "intro": "Sorted. For the next full disk cleanup on an agent, the order matters:",
            "steps": [
                "Take the agent out of the pool",
                "Prune docker images older than 7 days",
                "Delete workspace folders of finished pipelines",
                "Return the agent and run the smoke pipeline",
            ],
            "kws": ["out of the pool", "older than 7 days", "workspace folders", "smoke pipeline"],
            "key_term": "full disk",
            "near": "Build agent {host2} is out of disk space. What's the cleanup?",
            "far": "How do we handle a full disk on a build agent like {host2}?",
        }
    ),
]

RELEASE = [
    S(
        {
            "title": "Mobile app release of {svc}",
            "name": "mobile release checklist",
            "task": "We shipped {svc} {ver} to the app stores today. Can you write the internal announcement?",
            "intro": "For the next mobile release checklist, this is the order we followed:",
            "steps": [
                "Freeze strings for translators 3 days ahead",
                "Run the device farm suite on the release build",
                "Start the staged rollout at 5 percent",
                "Watch the crash-free rate for 24 hours before going to 100",
            ],
            "kws": ["freeze strings", "device farm", "5 percent", "crash-free rate"],
            "key_term": "mobile release",
            "near": "We're cutting {svc2} {ver2} for the app stores. What's the mobile release checklist?",
            "far": "I'm running my first mobile release for {svc2}. What should the checklist look like?",
        }
    ),
    S(
        {
            "title": "Public API version release ({svc})",
            "name": "API version release",
            "task": "We published version {ver} of the {svc} public API. Can you draft the changelog entry?",
            "intro": "Writing down the API version release steps while they're fresh:",
            "steps": [
                "Publish the OpenAPI diff to the partner channel",
                "Enable the new version behind a header flag",
                "Announce the sunset date of the oldest version",
                "Switch the docs default after two weeks",
            ],
            "kws": ["openapi diff", "header flag", "sunset date", "docs default"],
            "key_term": "api version release",
            "near": "Next up is an API version release for {svc2}. How do we roll it out?",
            "far": "A partner asks how we do an API version release for {svc2}. What's our process?",
        }
    ),
    S(
        {
            "title": "Publishing the {svc} client library",
            "name": "client library publish",
            "task": "We published the {svc} client library {ver}. Can you write the short note for the developer newsletter?",
            "intro": "For the next client library publish, here's the sequence:",
            "steps": [
                "Bump the version in the changelog first",
                "Build wheels on the signed CI runner",
                "Upload to the staging index and install-test it",
                "Promote to the public index and tag the commit",
            ],
            "kws": ["changelog first", "signed ci runner", "staging index", "tag the commit"],
            "key_term": "client library publish",
            "near": "Time for the {svc2} client library publish. Walk me through it?",
            "far": "I've never done a client library publish for {svc2}. How does it go?",
        }
    ),
]

BACKFILL = [
    S(
        {
            "title": "Backfilling daily metrics for {svc}",
            "name": "metrics backfill",
            "task": "The {svc} metrics for {n} days in {month} were missing from the dashboards. Can you draft a note to the analysts?",
            "intro": "Fixed. The metrics backfill went like this, for next time:",
            "steps": [
                "Pause the hourly rollup job",
                "Replay raw events from cold storage for the missing days",
                "Recompute aggregates with the idempotent flag",
                "Resume the rollup and diff totals against finance",
            ],
            "kws": ["hourly rollup", "cold storage", "idempotent flag", "diff totals"],
            "key_term": "metrics backfill",
            "near": "{svc2} lost two days of metrics. How do we do the metrics backfill?",
            "far": "What's the metrics backfill procedure if {svc2} dashboards have gaps?",
        }
    ),
    S(
        {
            "title": "Reindexing search for {svc}",
            "name": "search reindex",
            "task": "Search results for {svc} were stale for {n} hours after the schema change. Can you write the customer-facing note?",
            "intro": "We recovered. Keeping the search reindex order here:",
            "steps": [
                "Create a new index with the updated mapping",
                "Dual-write to the old and new index",
                "Bulk copy documents with throttling at 2000 per second",
                "Flip the read alias and drop the old index after a day",
            ],
            "kws": ["updated mapping", "dual-write", "2000 per second", "read alias"],
            "key_term": "search reindex",
            "near": "{svc2} needs a search reindex after its mapping change. What are the steps?",
            "far": "How do we run a search reindex on {svc2} without downtime?",
        }
    ),
    S(
        {
            "title": "Replaying the ledger for {client}",
            "name": "ledger replay",
            "task": "The ledger balances for {client} were off by {n} cents after a duplicate webhook. Can you write the apology email?",
            "intro": "The ledger replay fixed it; here are the steps we took:",
            "steps": [
                "Lock the account against new postings",
                "Export the journal from the last verified checkpoint",
                "Replay entries with duplicate webhook ids removed",
                "Reconcile against the bank statement before unlocking",
            ],
            "kws": ["lock the account", "verified checkpoint", "duplicate webhook ids", "bank statement"],
            "key_term": "ledger replay",
            "near": "{client2}'s balance looks wrong after a webhook glitch. How do we do a ledger replay?",
            "far": "Explain our ledger replay to the new finance engineer, using {client2} as the example.",
        }
    ),
]

ACCESS = [
    S(
        {
            "title": "Onboarding an engineer to {svc}",
            "name": "engineer onboarding",
            "task": "{person} joins the {svc} team on Monday. Can you draft the welcome message?",
            "intro": "For every engineer onboarding, we did it in this order:",
            "steps": [
                "Create the account in the identity provider with the team group",
                "Grant read-only production access for the first 30 days",
                "Pair them with an on-call buddy",
                "Schedule the security training before any write access",
            ],
            "kws": ["identity provider", "read-only production", "on-call buddy", "security training"],
            "key_term": "engineer onboarding",
            "near": "{person2} starts on {svc2} next week. What's the engineer onboarding?",
            "far": "Two new hires join {svc2} in {month}. Which engineer onboarding steps apply?",
        }
    ),
    S(
        {
            "title": "Contractor access to {svc}",
            "name": "contractor access setup",
            "task": "A contractor from {client} will help on {svc} for {n} weeks. Can you draft the statement of work summary?",
            "intro": "For the contractor access setup, this is how we did it:",
            "steps": [
                "Get the NDA countersigned by legal",
                "Create a guest account that expires with the contract",
                "Limit repository access to the project group",
                "Review the access log every Friday",
            ],
            "kws": ["nda countersigned", "guest account", "project group", "every friday"],
            "key_term": "contractor access",
            "near": "We're bringing in a contractor from {client2}. What's the contractor access setup?",
            "far": "How do we give a {client2} contractor access to {svc2}?",
        }
    ),
    S(
        {
            "title": "Offboarding from {svc}",
            "name": "offboarding",
            "task": "{person} is leaving the {svc} team on Friday. Can you write the farewell note?",
            "intro": "For future offboarding, this is what we went through:",
            "steps": [
                "Transfer ownership of their repositories and dashboards",
                "Rotate the shared credentials they could read",
                "Disable the account at 17:00 on the last day",
                "Archive their mailbox for 90 days",
            ],
            "kws": ["transfer ownership", "rotate the shared credentials", "17:00", "90 days"],
            "key_term": "offboarding",
            "near": "{person2} leaves {svc2} at the end of the month. What does offboarding involve?",
            "far": "What's our offboarding procedure when someone leaves {svc2}?",
        }
    ),
]

CLOSE = [
    S(
        {
            "title": "Revenue recognition close for {month}",
            "name": "revenue close",
            "task": "Can you help me write the {month} revenue summary for the CFO? Bookings grew {n}%.",
            "intro": "For the next revenue close, this is the sequence I followed:",
            "steps": [
                "Lock the billing system at the end of the last business day",
                "Pull deferred revenue from the subscription ledger",
                "Recognise usage fees from the metering export",
                "Reconcile against the general ledger before sign-off",
            ],
            "kws": ["lock the billing system", "deferred revenue", "metering export", "general ledger"],
            "key_term": "revenue close",
            "near": "It's month end again. How do I do the revenue close for {client2}'s division?",
            "far": "I'm covering the revenue close while {person2} is away. What are the steps?",
        }
    ),
    S(
        {
            "title": "Expense accruals for {month}",
            "name": "expense accrual run",
            "task": "Can you draft the note to department heads asking for {month} expense estimates? Deadline in {n} days.",
            "intro": "For the next expense accrual run, this is what we did:",
            "steps": [
                "Collect open purchase orders from procurement",
                "Estimate unbilled hours from the timesheet system",
                "Post accruals with auto-reversal on day one",
                "Send the variance report to department heads",
            ],
            "kws": ["open purchase orders", "unbilled hours", "auto-reversal", "variance report"],
            "key_term": "expense accrual",
            "near": "I need to do the expense accrual run for {client2}. What's the order?",
            "far": "Describe the expense accrual run for {person2}, our new finance analyst.",
        }
    ),
    S(
        {
            "title": "Payroll reconciliation for {month}",
            "name": "payroll reconciliation",
            "task": "Payroll for {month} went out with {n} corrections. Can you write the note to HR?",
            "intro": "Recording the payroll reconciliation steps:",
            "steps": [
                "Compare headcount in HR with the payroll register",
                "Match net pay to the bank debit",
                "Check tax withholdings against the filing",
                "Archive the signed reconciliation in the finance drive",
            ],
            "kws": ["headcount", "bank debit", "tax withholdings", "finance drive"],
            "key_term": "payroll reconciliation",
            "near": "Payroll ran for the {client2} entity. How do I do the payroll reconciliation?",
            "far": "What does the payroll reconciliation involve after {person2}'s team gets a bonus run?",
        }
    ),
]

COMMS = [
    S(
        {
            "title": "Status page updates during a {svc} outage",
            "name": "status page update routine",
            "task": "{svc} was down for {n}0 minutes this morning. Can you draft the postmortem intro?",
            "intro": "For the next outage, our status page update routine went like this:",
            "steps": [
                "Post an investigating notice within 10 minutes",
                "Update every 30 minutes even without news",
                "Name the affected regions explicitly",
                "Close with a resolved notice and a postmortem link within 48 hours",
            ],
            "kws": ["within 10 minutes", "every 30 minutes", "affected regions", "postmortem link"],
            "key_term": "status page",
            "near": "{svc2} is having an outage right now. How should we run the status page update routine?",
            "far": "Explain our status page update routine to the new support lead, say for a {svc2} incident.",
        }
    ),
    S(
        {
            "title": "Customer notice for a {svc} data incident",
            "name": "customer incident notice",
            "task": "A bug in {svc} showed {n} customers another tenant's invoice totals. Can you draft the internal summary?",
            "intro": "For any customer incident notice, this is the order we used:",
            "steps": [
                "Get legal to confirm the notification duty",
                "Notify affected admins by email within 72 hours",
                "Offer a call with the security lead",
                "Publish the fix date in the trust centre",
            ],
            "kws": ["notification duty", "within 72 hours", "security lead", "trust centre"],
            "key_term": "customer incident notice",
            "near": "{svc2} exposed some metadata to the wrong tenant. What's the customer incident notice process?",
            "far": "Which steps does a customer incident notice need if {svc2} leaks data?",
        }
    ),
    S(
        {
            "title": "Executive summary after a {svc} incident",
            "name": "executive incident summary",
            "task": "Can you help me write the executive incident summary for the {svc} slowdown? It hit {n}% of requests.",
            "intro": "For the next executive incident summary, the structure we settled on:",
            "steps": [
                "Open with customer impact in one sentence",
                "Give the timeline in UTC",
                "State the root cause without blame",
                "End with the three follow-up actions and their owners",
            ],
            "kws": ["customer impact", "timeline in utc", "without blame", "follow-up actions"],
            "key_term": "executive incident summary",
            "near": "Leadership wants an executive incident summary for yesterday's {svc2} errors. Draft it?",
            "far": "How should the executive incident summary for the {svc2} outage be structured?",
        }
    ),
]


FAMILIES = [
    FamilySpec(
        "sop_from_worked_task",
        "procedural",
        "Writing an SOP from a worked task",
        "The user works through a task (a replica rebuild, an access review, a data export) and lists "
        "the steps that worked. Eval sessions ask for the same task on a new target; the answer must give "
        "the stored steps in order.",
        8,
        templates(SOP, ["replica_rebuild", "access_review", "data_export"]),
    ),
    FamilySpec(
        "implicit_rule_induction",
        "procedural",
        "Inducing review rules from corrections",
        "No checklist is ever given: a reviewer rejects a worked example for different reasons over two "
        "sessions (migration PRs, release notes, vendor invoices). Eval sessions present a new instance; "
        "the answer must apply every rule that was learned from the rejections.",
        8,
        templates(RULES, ["migration_review", "release_notes_review", "invoice_approval"]),
    ),
    FamilySpec(
        "failure_procedure_capture",
        "procedural",
        "Capturing a recovery procedure after a failure",
        "After a failure is fixed (a stuck consumer, an expired certificate, a full build disk) the user "
        "records what worked. When the failure recurs elsewhere, the answer must give the recovery steps in order.",
        8,
        templates(FAILURE, ["stuck_consumer", "expired_certificate", "full_disk"]),
    ),
    FamilySpec(
        "release_checklist",
        "procedural",
        "Reusing a release checklist",
        "A release (mobile app, public API version, client library) is done once with its checklist; the "
        "next release must follow the same checklist in the same order.",
        8,
        templates(RELEASE, ["mobile_release", "api_version", "library_publish"]),
    ),
    FamilySpec(
        "data_repair_runbook",
        "procedural",
        "Repairing data the way it worked last time",
        "A data repair (metrics backfill, search reindex, ledger replay) is worked through once; evals ask "
        "for the same repair on another system, where a wrong order loses or duplicates data.",
        8,
        templates(BACKFILL, ["metrics_backfill", "search_reindex", "ledger_replay"]),
    ),
    FamilySpec(
        "access_lifecycle",
        "procedural",
        "Granting and removing access by the book",
        "Onboarding an engineer, setting up a contractor, offboarding a leaver: the sequence used once "
        "must be reused for the next person.",
        8,
        templates(ACCESS, ["engineer_onboarding", "contractor_access", "offboarding"]),
    ),
    FamilySpec(
        "month_end_close",
        "procedural",
        "Month-end close routines",
        "A finance routine (revenue close, expense accruals, payroll reconciliation) is carried out once "
        "with the user; the next month's run must follow the same steps.",
        8,
        templates(CLOSE, ["revenue_close", "expense_accruals", "payroll_reconciliation"]),
    ),
    FamilySpec(
        "incident_comms",
        "procedural",
        "Incident communication routines",
        "How incidents are communicated (status page cadence, customer notices, executive summaries) is "
        "settled during one incident and must be followed in the next.",
        8,
        templates(COMMS, ["status_page", "customer_notice", "executive_summary"]),
    ),
]
