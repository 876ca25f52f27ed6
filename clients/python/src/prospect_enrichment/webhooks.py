"""Verifying completion webhooks per Standard Webhooks (https://www.standardwebhooks.com/)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from typing import cast

from .errors import WebhookVerificationError
from .models import WebhookEvent

TOLERANCE_SECONDS = 5 * 60


def _header(headers: Mapping[str, str], name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    return None


def verify_webhook(headers: Mapping[str, str], body: str | bytes, secret: str, *, now: float | None = None) -> WebhookEvent:
    """HMAC-SHA256 over ``webhook-id.webhook-timestamp.body`` with the ``whsec_…`` secret;
    any of the space-separated ``v1,…`` signatures (two during a rotation); timestamp within 5 minutes.
    Pass the raw body exactly as received. Returns the parsed event."""
    msg_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not msg_id or not timestamp or not signatures:
        raise WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature")
    try:
        seconds = int(timestamp)
    except ValueError as error:
        raise WebhookVerificationError("invalid webhook-timestamp") from error
    if abs((now if now is not None else time.time()) - seconds) > TOLERANCE_SECONDS:
        raise WebhookVerificationError("webhook-timestamp too old or too new")
    text = body.decode("utf-8") if isinstance(body, bytes) else body
    try:
        key = base64.b64decode(secret.removeprefix("whsec_"))
    except ValueError as error:
        raise WebhookVerificationError("the secret is not base64 after whsec_") from error
    expected = hmac.new(key, f"{msg_id}.{timestamp}.{text}".encode(), hashlib.sha256).digest()
    for entry in signatures.split(" "):
        version, _, signature = entry.partition(",")
        if version != "v1":
            continue
        try:
            candidate = base64.b64decode(signature)
        except ValueError:
            continue
        if hmac.compare_digest(candidate, expected):
            return cast(WebhookEvent, json.loads(text))
    raise WebhookVerificationError("no matching signature")
