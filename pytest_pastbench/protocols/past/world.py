"""The simulated services of the benchmark world: notes, archive, tickets, deploys.

Deterministic and seeded from the episode's ``world`` block; every session starts from that
seed, so nothing carries between sessions except the persistent store. Checks read the state
after the session (``snapshot``) and the tool-call log.
"""

from __future__ import annotations

from typing import Any

from pytest_pastbench.core.text import idf_overlap_score, search_terms, term_counts
from pytest_pastbench.errors import WorldError
from pytest_pastbench.protocols.past import schema

ARCHIVE_SEARCH_LIMIT = 5


class World:
    def __init__(self, seed: schema.WorldSeed, now: str | None = None) -> None:
        self.now = now or seed.now
        self.notes: dict[str, dict[str, Any]] = {n.title: n.model_dump() for n in seed.notes}
        self.archive: list[dict[str, Any]] = [d.model_dump() for d in seed.archive]
        self.tickets: list[dict[str, Any]] = [t.model_dump() for t in seed.tickets]
        self.deploys: list[dict[str, Any]] = [d.model_dump() for d in seed.deploys]
        self._archive_words = [
            # The store's terms (stemmed, compounds split): "retro" / "retros", "R-7" / "r 7" match.
            frozenset(search_terms(f"{d['id']} {d['title']} {d['body']} {' '.join(d['tags'])}"))
            for d in self.archive
        ]

    def snapshot(self) -> dict[str, list[dict[str, Any]]]:
        return {
            "notes": [dict(n) for _, n in sorted(self.notes.items())],
            "archive": [dict(d) for d in self.archive],
            "tickets": [dict(t) for t in self.tickets],
            "deploys": [dict(d) for d in self.deploys],
        }

    # -- notes --------------------------------------------------------------------------------------

    def notes_list(self) -> list[str]:
        return sorted(self.notes)

    def notes_read(self, title: str) -> dict[str, Any]:
        if title not in self.notes:
            raise WorldError(f"no note titled {title!r}; notes_list shows the titles")
        return dict(self.notes[title])

    def notes_write(self, title: str, body: str) -> dict[str, Any]:
        if not title.strip():
            raise WorldError("title must not be empty")
        self.notes[title] = {"title": title, "body": body}
        return {"saved": title}

    # -- archive -------------------------------------------------------------------------------------

    def archive_search(self, query: str) -> list[dict[str, Any]]:
        terms = set(search_terms(query))
        if not terms:
            raise WorldError("query has no searchable words")
        n = len(self.archive)
        scored = []
        for position, (doc, doc_words) in enumerate(zip(self.archive, self._archive_words, strict=True)):
            overlap = terms & doc_words
            if overlap:
                df = {t: sum(1 for w in self._archive_words if t in w) for t in overlap}
                score = idf_overlap_score(overlap, n, df, term_counts(query))
                scored.append((-score, position, doc))
        return [
            {"id": d["id"], "title": d["title"], "snippet": d["body"][:160], "tags": d["tags"]}
            for _, _, d in sorted(scored)[:ARCHIVE_SEARCH_LIMIT]
        ]

    def archive_read(self, id: str) -> dict[str, Any]:
        for doc in self.archive:
            if doc["id"] == id:
                return dict(doc)
        raise WorldError(f"no archive document {id!r}")

    # -- tickets -------------------------------------------------------------------------------------

    def tickets_list(self, queue: str | None = None) -> list[dict[str, Any]]:
        return [dict(t) for t in self.tickets if queue is None or t["queue"].lower() == queue.lower()]

    def tickets_create(
        self,
        title: str,
        body: str = "",
        queue: str = "general",
        priority: str = "P3",
        assignee: str = "",
    ) -> dict[str, Any]:
        if not title.strip():
            raise WorldError("title must not be empty")
        if priority not in ("P0", "P1", "P2", "P3", "P4"):
            raise WorldError(f"priority must be P0..P4, not {priority!r}")
        ticket = {
            "id": f"T-{len(self.tickets) + 1:03d}",
            "title": title,
            "body": body,
            "queue": queue,
            "priority": priority,
            "status": "open",
            "assignee": assignee,
        }
        self.tickets.append(ticket)
        return dict(ticket)

    def tickets_update(
        self,
        id: str,
        status: str | None = None,
        priority: str | None = None,
        assignee: str | None = None,
        comment: str | None = None,
    ) -> dict[str, Any]:
        for ticket in self.tickets:
            if ticket["id"] == id:
                for key, value in (("status", status), ("priority", priority), ("assignee", assignee)):
                    if value is not None:
                        ticket[key] = value
                if comment:
                    ticket["body"] = (ticket["body"] + "\n" + comment).strip()
                return dict(ticket)
        raise WorldError(f"no ticket {id!r}")

    # -- deploys -------------------------------------------------------------------------------------

    def deploys_list(self, service: str | None = None) -> list[dict[str, Any]]:
        return [dict(d) for d in self.deploys if service is None or d["service"] == service]

    def deploys_create(self, service: str, version: str) -> dict[str, Any]:
        if not service.strip() or not version.strip():
            raise WorldError("service and version must not be empty")
        deploy = {"service": service, "version": version, "at": self.now, "by": "agent"}
        self.deploys.append(deploy)
        return dict(deploy)
