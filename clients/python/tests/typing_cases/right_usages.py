"""Usages that must type-check under `mypy --strict` (tests/test_typing.py): the contract's fields,
narrowed where they can be null, each webhook event by its type, the client's options."""

from collections.abc import Mapping

import httpx

from prospect_enrichment import (
    AsyncProspectEnrichment,
    CompletedReply,
    DecisionMaker,
    Prospect,
    ProspectEnrichment,
    ReplyMeta,
    WebhookEvent,
    verify_webhook,
)


def reads_the_contract(reply: CompletedReply) -> list[str]:
    lines: list[str] = [reply["research_id"], reply["completed_at"]]
    prospect: Prospect | None = reply["data"]["prospect"]
    if prospect is not None:
        name: str | None = prospect["name"]
        lines.append(name or prospect["email"])
        lines.extend(post["text"] for post in prospect["posts"] or [])
    company = reply["data"]["company"]
    if company is not None and company["clients"] is not None:
        lines.append(company["clients"]["count"])
    makers: list[DecisionMaker] = reply["data"]["decision_makers"]
    lines.extend(person["full_name"] for person in makers)
    meta: ReplyMeta | None = reply.get("_meta")
    if meta is not None and "prospect" in meta:
        lines.append(str(meta["prospect"]["from_cache"]))
    return lines


def reads_each_event_by_its_type(event: WebhookEvent) -> str:
    if event["type"] == "research.completed":
        return event["data"]["completed_at"]
    if event["type"] == "research.failed":
        return event["data"]["error"]
    return event["data"]["message"]


def verifies(headers: Mapping[str, str], body: bytes, secret: str) -> str:
    return reads_each_event_by_its_type(verify_webhook(headers, body, secret))


def takes_its_options() -> None:
    with ProspectEnrichment(
        "svc_live_x",
        "http://127.0.0.1:3000",
        http=httpx.Client(),
        poll_timeout=60.0,
        long_poll_seconds=10,
        resubmit_delay=1.0,
        max_server_retries=2,
        server_retry_base=0.1,
    ) as client:
        client.submit({"email": "a@example.com", "prospect_name": None})
    AsyncProspectEnrichment("svc_live_x", "http://127.0.0.1:3000", http=httpx.AsyncClient(), poll_timeout=30)
