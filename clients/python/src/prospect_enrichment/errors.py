"""Typed errors carrying the API's codes (docs/api.md#errors)."""

from __future__ import annotations

from typing import Any, cast

from .models import ErrorBody


class ProspectApiError(Exception):
    """An error reply of the API: ``code`` is its machine-readable ``error``."""

    def __init__(self, status: int, body: ErrorBody | None) -> None:
        self.status = status
        self.body = body
        self.code: str = body["error"] if body else f"http_{status}"
        super().__init__((body.get("message") if body else None) or self.code)


class CreditsError(ProspectApiError):
    """429 ``credits_exhausted`` or ``trial_limit_reached``; not retried (docs/api.md#retry-advice)."""

    def __init__(self, status: int, body: ErrorBody) -> None:
        super().__init__(status, body)
        self.used: int = body.get("used", 0)
        self.limit: int = body.get("limit", 0)


class ProspectNetworkError(Exception):
    """No answer (connection refused or reset, DNS, timeout) after the retries."""


class ResearchFailedError(Exception):
    """The job ended ``failed``, also after the one resubmission the spec recommends."""

    def __init__(self, research_id: str, code: str, first_research_id: str | None) -> None:
        self.research_id = research_id
        self.code = code
        self.first_research_id = first_research_id
        super().__init__(f"research {research_id} failed: {code}")


class ResearchTimeoutError(Exception):
    """The job did not end within the client's patience (3 minutes, docs/api.md#polling)."""

    def __init__(self, research_id: str, waited_seconds: float) -> None:
        self.research_id = research_id
        super().__init__(f"research {research_id} did not end within {round(waited_seconds)} s")


class WebhookVerificationError(Exception):
    """A delivery whose signature, id or timestamp does not verify."""


def error_from_reply(status: int, body: Any) -> ProspectApiError:
    parsed = cast(ErrorBody, body) if isinstance(body, dict) and isinstance(body.get("error"), str) else None
    if status == 429 and parsed and parsed["error"] in ("credits_exhausted", "trial_limit_reached"):
        return CreditsError(status, parsed)
    return ProspectApiError(status, parsed)
