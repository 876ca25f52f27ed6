"""Typed client of the Prospect Enrichment API (sync and async, on httpx)."""

from .client import AsyncProspectEnrichment, Progress, ProspectEnrichment, ResearchManyResult
from .errors import (
    CreditsError,
    ProspectApiError,
    ProspectNetworkError,
    ResearchFailedError,
    ResearchTimeoutError,
    WebhookVerificationError,
)
from .models import Accepted, CompletedReply, ErrorBody, FailedReply, ResearchRequest, RunningReply, StatusReply, WebhookEvent
from .webhooks import verify_webhook

__all__ = [
    "Accepted",
    "AsyncProspectEnrichment",
    "CompletedReply",
    "CreditsError",
    "ErrorBody",
    "FailedReply",
    "Progress",
    "ProspectApiError",
    "ProspectEnrichment",
    "ProspectNetworkError",
    "ResearchFailedError",
    "ResearchManyResult",
    "ResearchRequest",
    "ResearchTimeoutError",
    "RunningReply",
    "StatusReply",
    "WebhookEvent",
    "WebhookVerificationError",
    "verify_webhook",
]
