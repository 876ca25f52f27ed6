"""The hand-written models follow /openapi.json: a field added, removed or renamed there fails here."""

from __future__ import annotations

import httpx

from prospect_enrichment.models import Accepted, ErrorBody, ResearchRequest


def properties(schema: dict) -> set[str]:
    if "properties" in schema:
        return set(schema["properties"])
    found: set[str] = set()
    for key in ("allOf", "anyOf", "oneOf"):
        for part in schema.get(key, []):
            found |= properties(part)
    return found


def test_models_name_the_documents_fields(stack: dict) -> None:
    document = httpx.get(f"{stack['apiUrl']}/openapi.json").json()
    start = document["paths"]["/research"]["post"]
    request_schema = start["requestBody"]["content"]["application/json"]["schema"]
    assert properties(request_schema) == set(ResearchRequest.__annotations__)
    accepted_schema = start["responses"]["202"]["content"]["application/json"]["schema"]
    assert properties(accepted_schema) == set(Accepted.__annotations__)
    error_schema = start["responses"]["400"]["content"]["application/json"]["schema"]
    assert properties(error_schema) == set(ErrorBody.__annotations__)
    status = document["paths"]["/research-status/{research_id}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    variants = status.get("oneOf") or status.get("anyOf") or []
    assert {tuple(sorted(properties(variant))) for variant in variants} == {
        ("estimated_seconds", "research_id", "status"),
        ("_meta", "completed_at", "data", "research_id", "status"),
        ("error", "research_id", "status"),
    }
