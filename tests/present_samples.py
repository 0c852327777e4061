"""Hand-written families in the issue-29 schema (``evidence: present``, ``Session.world``): the
present supersedes what the learn session taught, through each of the places a competent agent
looks (a note, an archived document, a ticket in a queue, the user's own words). Used by the
offline-policy tests and the stale-trust adversary test; none of it is built-in data."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from pytest_pastbench.protocols.past.family_files import load_family
from pytest_pastbench.protocols.past.schema import Family

# (learn text, store question and its value, present prompt, session world, current value, old value)
CASES: list[dict[str, Any]] = [
    {
        "learn": "Can you draft the Orchid audit memo? Orchid ledger exports are owned by @ines.b, "
        "and their retention is 45 days.",
        "ask": "Who owns the Orchid ledger exports?",
        "stored": "@ines.b",
        "present": "Orchid's auditors ask how long the ledger exports are kept; the retention note "
        "for them is current. What do I tell them?",
        "world": {
            "notes": [
                {
                    "title": "Orchid ledger retention",
                    "body": "Since the audit the Orchid ledger exports retention is now 90 days.",
                }
            ]
        },
        "current": "90 days",
        "old": "45 days",
    },
    {
        "learn": "Please summarise the Kestrel build setup. Kestrel release notes go to @otto.v, and "
        "Kestrel builds run on the runner pool rp-east-2.",
        "ask": "Who gets the Kestrel release notes?",
        "stored": "@otto.v",
        "present": "The platform team filed a build runbook for Kestrel in the archive. Which runner "
        "pool do Kestrel builds use?",
        "world": {
            "archive": [
                {
                    "id": "RB-31",
                    "title": "Kestrel build runbook",
                    "tags": ["kestrel", "runbook"],
                    "body": "Kestrel builds moved to the runner pool rp-west-5 in May.",
                }
            ]
        },
        "current": "rp-west-5",
        "old": "rp-east-2",
    },
    {
        "learn": "Could you file the Marlow printer paperwork? Our Marlow printer contact is @rae.t, "
        "and the Marlow printer contract is with Inkwell.",
        "ask": "Who is our contact for the Marlow printer?",
        "stored": "@rae.t",
        "present": "There's a ticket in the facilities queue about the Marlow printer contract. Which "
        "vendor holds the contract?",
        "world": {
            "tickets": [
                {
                    "id": "FAC-77",
                    "title": "Marlow printer contract renewal",
                    "queue": "facilities",
                    "body": "The Marlow printer contract moved to Papyra from July.",
                }
            ]
        },
        "current": "Papyra",
        "old": "Inkwell",
    },
    {
        "learn": "Set up the Tallis digest reminder. The Tallis digest channel is #tallis-weekly, and "
        "the Tallis digest goes out at 16:00.",
        "ask": "Which channel does the Tallis digest go to?",
        "stored": "#tallis-weekly",
        "present": "Because of the holiday the Tallis digest goes out at 11:30 this time. Draft the "
        "reminder for it.",
        "world": {},
        "current": "11:30",
        "old": "16:00",
    },
]


def present_family(capability: str = "update", family_id: str = "present_supersedes") -> dict[str, Any]:
    episodes = []
    for n, case in enumerate(CASES, start=1):
        far: dict[str, Any] = {
            "stage": "eval_far",
            "user": [case["present"]],
            "checks": [
                {
                    "type": "value",
                    "value": case["current"],
                    "superseded": [case["old"]],
                    "evidence": "present",
                }
            ],
        }
        if case["world"]:
            far["world"] = case["world"]
        old_words = case["old"].split()
        episodes.append(
            {
                "id": f"ep{n:02d}",
                "evidence": {
                    "key_facts": [
                        {
                            "text": case["learn"].split(". ", 1)[-1].split("? ", 1)[-1],
                            "match": [case["stored"]],
                        }
                    ],
                    "stale_facts": [{"text": case["old"], "match": old_words}],
                },
                "sessions": [
                    {"stage": "learn", "user": [case["learn"]]},
                    {
                        "stage": "eval_near",
                        "user": [case["ask"]],
                        "checks": [{"type": "value", "value": case["stored"]}],
                    },
                    far,
                ],
            }
        )
    return {
        "format": "pastbench/v1",
        "id": family_id,
        "capability": capability,
        "version": "1",
        "episodes": episodes,
    }


def write_present_family(root: Path, **kwargs: Any) -> Family:
    raw = present_family(**kwargs)
    folder = root / raw["capability"]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{raw['id']}.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    return load_family(path)[0]
