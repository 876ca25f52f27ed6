"""The API's request and reply shapes, typed after /openapi.json (spec §2, §4).

Hand-written TypedDicts: the replies are plain JSON objects, returned as such.
tests/test_models_match_openapi.py fails when /openapi.json names a field these do not.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict, Union

from typing_extensions import NotRequired


class ResearchRequest(TypedDict):
    email: str
    prospect_name: NotRequired[str | None]
    company_name: NotRequired[str | None]
    social_url: NotRequired[str | None]
    company_social_url: NotRequired[str | None]


class Accepted(TypedDict):
    research_id: str
    status: Literal["processing"]
    estimated_seconds: int


class RunningReply(TypedDict):
    research_id: str
    status: Literal["queued", "processing"]
    estimated_seconds: int


class CompletedReply(TypedDict):
    research_id: str
    status: Literal["completed"]
    completed_at: str
    data: dict[str, Any]
    _meta: NotRequired[dict[str, Any]]


class FailedReply(TypedDict):
    research_id: str
    status: Literal["failed"]
    error: Literal["internal_error", "timeout"]


StatusReply = Union[RunningReply, CompletedReply, FailedReply]


class ErrorBody(TypedDict):
    error: str
    message: NotRequired[str]
    used: NotRequired[int]
    limit: NotRequired[int]


class WebhookEvent(TypedDict):
    type: str
    timestamp: str
    data: dict[str, Any]
