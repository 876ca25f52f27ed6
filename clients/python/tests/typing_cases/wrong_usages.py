"""Usages that must not type-check: tests/test_typing.py runs `mypy --strict` on this file and expects,
on each line marked `# expect: CODE`, an error of that code, and no error anywhere else."""

from prospect_enrichment import AsyncProspectEnrichment, CompletedReply, ProspectEnrichment, WebhookEvent


def reads_fields_the_contract_does_not_have(reply: CompletedReply) -> None:
    data = reply["data"]
    print(data["prospect"]["full_name"])  # expect: index, typeddict-item
    prospect = data["prospect"]
    if prospect is not None:
        print(prospect["full_name"])  # expect: typeddict-item
        name: str = prospect["name"]  # expect: assignment
        print(name, prospect["posts"][0])  # expect: index
    company = data["company"]
    if company is not None:
        print(company["ceo"])  # expect: typeddict-item
        print(company["news"])
        print(company["clients"]["count"])  # expect: index
    for person in data["decision_makers"]:
        print(person["name"])  # expect: typeddict-item
        print(person["picture_url"].upper())  # expect: union-attr
    meta = reply.get("_meta")
    if meta is not None:
        print(meta["sources"])  # expect: typeddict-item
    if reply["status"] == "processing":  # expect: comparison-overlap
        print(reply["research_id"])  # (unreachable: mypy checks no further)


def reads_an_event_without_its_type(event: WebhookEvent) -> None:
    print(event["data"]["research_id"])  # expect: typeddict-item
    if event["type"] == "research.failed":
        print(event["data"]["completed_at"])  # expect: typeddict-item
    if event["type"] == "research.completed":
        print(event["data"]["error"])  # expect: typeddict-item


def passes_options_the_client_does_not_take() -> None:
    ProspectEnrichment("svc_live_x", "http://127.0.0.1:3000", poll_timeout_ms=5_000)  # expect: call-arg
    ProspectEnrichment("svc_live_x", "http://127.0.0.1:3000", long_poll_seconds="20")  # expect: arg-type
    AsyncProspectEnrichment("svc_live_x", "http://127.0.0.1:3000", max_retries=1)  # expect: call-arg
    ProspectEnrichment("svc_live_x", "http://127.0.0.1:3000").research({"mail": "a@example.com"})  # expect: arg-type
