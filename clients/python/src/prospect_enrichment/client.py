"""The API with the spec's client rules built in (docs/api.md#polling, docs/api.md#retry-advice), sync and async, on httpx."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any, Union, cast
from urllib.parse import quote

import httpx

from .errors import ProspectNetworkError, ResearchFailedError, ResearchTimeoutError, error_from_reply
from .models import Accepted, CompletedReply, ResearchRequest, StatusReply

# The contract's polling backoff (docs/api.md#polling): 2 s, x1.5, at most 10 s.
BACKOFF_START = 2.0
BACKOFF_FACTOR = 1.5
BACKOFF_MAX = 10.0

RequestLike = Union[str, ResearchRequest]


@dataclass
class ResearchManyResult:
    """One item of ``research_many()``: its request, and its completed reply or the error it ended with."""

    request: ResearchRequest
    reply: CompletedReply | None = None
    error: Exception | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass
class Progress:
    """What ``on_progress`` is given after each item of ``research_many()`` ends."""

    done: int
    total: int
    succeeded: int
    failed: int
    last: ResearchManyResult


@dataclass(frozen=True)
class _Settings:
    api_key: str
    base_url: str
    poll_timeout: float
    long_poll_seconds: int
    resubmit_delay: float
    max_server_retries: int
    server_retry_base: float


def _as_request(item: RequestLike) -> ResearchRequest:
    return {"email": item} if isinstance(item, str) else item


def _headers(settings: _Settings, extra: dict[str, str] | None = None) -> dict[str, str]:
    headers = {"accept": "application/json", **(extra or {})}
    if settings.api_key:
        headers["authorization"] = f"Bearer {settings.api_key}"
    return headers


def _status_path(research_id: str, wait_seconds: int | None) -> str:
    query = f"?wait={min(25, max(0, int(wait_seconds)))}" if wait_seconds else ""
    return f"/research-status/{quote(research_id, safe='')}{query}"


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


class ProspectEnrichment:
    """Synchronous client. ``research()`` submits and waits; ``research_many()`` runs many with a concurrency limit.

    Close it with ``close()``, or use it as a context manager. Nothing is sent until a call.

    Args:
        api_key: ``svc_live_…``, sent as ``Authorization: Bearer``.
        base_url: The API's base URL, e.g. ``https://api.example.com``.
        http: An httpx client of your own (proxies, TLS, transports); by default one whose
            read timeout (35 s) leaves room for a long poll.
        poll_timeout: Seconds to wait for one job before ResearchTimeoutError (the spec: 3 minutes).
        long_poll_seconds: Seconds one ``?wait=`` poll may be held (an extension), at most 25.
        resubmit_delay: Seconds before a ``failed`` job is resubmitted, once (the spec: 5 s).
        max_server_retries: Retries of a 5xx or unanswered request (the spec: at most 3).
        server_retry_base: Seconds before the first such retry; doubled for each further one.
    """

    def __init__(
        self,
        api_key: str,
        base_url: str,
        *,
        http: httpx.Client | None = None,
        poll_timeout: float = 180.0,
        long_poll_seconds: int = 20,
        resubmit_delay: float = 5.0,
        max_server_retries: int = 3,
        server_retry_base: float = 0.5,
    ) -> None:
        self._settings = _Settings(
            api_key, base_url.rstrip("/"), poll_timeout, min(25, long_poll_seconds), resubmit_delay, max_server_retries, server_retry_base
        )
        # Long polls hold a reply up to 25 s: the read timeout leaves room for that.
        self._http = http or httpx.Client(timeout=httpx.Timeout(10.0, read=35.0))

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> ProspectEnrichment:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def submit(self, request: RequestLike, *, idempotency_key: str | None = None) -> Accepted:
        """``POST /research`` (1 credit); 5xx retried with the same Idempotency-Key, so never charged twice."""
        key = idempotency_key or str(uuid.uuid4())
        return cast(Accepted, self._call("POST", "/research", json=_as_request(request), headers={"idempotency-key": key}))

    def status(self, research_id: str, *, wait_seconds: int | None = None) -> StatusReply:
        """``GET /research-status/{id}``, optionally held until the job ends (the ``?wait=`` extension)."""
        return cast(StatusReply, self._call("GET", _status_path(research_id, wait_seconds)))

    def wait_for(self, research_id: str) -> StatusReply:
        """Long polls, falling back to the spec's backoff when the server answers at once; gives up after 3 minutes."""
        started = time.monotonic()
        backoff = BACKOFF_START
        while True:
            remaining = self._settings.poll_timeout - (time.monotonic() - started)
            if remaining <= 0:
                raise ResearchTimeoutError(research_id, time.monotonic() - started)
            wait = max(1, min(self._settings.long_poll_seconds, int(remaining)))
            polled = time.monotonic()
            reply = self.status(research_id, wait_seconds=wait)
            if reply["status"] in ("completed", "failed"):
                return reply
            if time.monotonic() - polled < wait / 2:
                time.sleep(min(backoff, max(0.0, remaining)))
                backoff = min(BACKOFF_MAX, backoff * BACKOFF_FACTOR)

    def research(self, request: RequestLike, *, idempotency_key: str | None = None) -> CompletedReply:
        """Submits and waits; resubmits a ``failed`` job once after 5 s (a new credit, docs/api.md#retry-advice)."""
        body = _as_request(request)
        first = self.wait_for(self.submit(body, idempotency_key=idempotency_key)["research_id"])
        if first["status"] == "completed":
            return first
        time.sleep(self._settings.resubmit_delay)
        second = self.wait_for(self.submit(body)["research_id"])
        if second["status"] == "completed":
            return second
        raise ResearchFailedError(second["research_id"], second["error"] if second["status"] == "failed" else "internal_error", first["research_id"])

    def research_many(
        self, items: Sequence[RequestLike], *, concurrency: int = 5, on_progress: Callable[[Progress], None] | None = None
    ) -> list[ResearchManyResult]:
        """Researches many prospects ``concurrency`` at a time; results in input order, each a reply or its error."""
        requests = [_as_request(item) for item in items]
        counts = {"done": 0, "succeeded": 0, "failed": 0}

        def one(request: ResearchRequest) -> ResearchManyResult:
            try:
                result = ResearchManyResult(request, reply=self.research(request))
            except Exception as error:  # each item's own outcome
                result = ResearchManyResult(request, error=error)
            return result

        with ThreadPoolExecutor(max_workers=max(1, min(concurrency, len(requests) or 1))) as pool:
            futures = [pool.submit(one, request) for request in requests]
            for future in as_completed(futures):
                result = future.result()
                counts["done"] += 1
                counts["succeeded" if result.ok else "failed"] += 1
                if on_progress:
                    on_progress(Progress(total=len(requests), last=result, **counts))
            return [future.result() for future in futures]

    def _call(self, method: str, path: str, *, json: Any = None, headers: dict[str, str] | None = None) -> Any:
        attempt = 0
        while True:
            try:
                response = self._http.request(method, f"{self._settings.base_url}{path}", json=json, headers=_headers(self._settings, headers))
            except httpx.TransportError as error:
                if attempt >= self._settings.max_server_retries:
                    raise ProspectNetworkError(f"{method} {path}: no answer") from error
            else:
                if response.is_success:
                    return _json(response)
                if response.status_code < 500 or attempt >= self._settings.max_server_retries:
                    raise error_from_reply(response.status_code, _json(response))
            time.sleep(self._settings.server_retry_base * 2**attempt)
            attempt += 1


class AsyncProspectEnrichment:
    """Asynchronous client: the same surface and options as ProspectEnrichment, awaitable; ``http`` is an ``httpx.AsyncClient``.

    Close it with ``aclose()``, or use it as an async context manager.
    """

    def __init__(
        self,
        api_key: str,
        base_url: str,
        *,
        http: httpx.AsyncClient | None = None,
        poll_timeout: float = 180.0,
        long_poll_seconds: int = 20,
        resubmit_delay: float = 5.0,
        max_server_retries: int = 3,
        server_retry_base: float = 0.5,
    ) -> None:
        self._settings = _Settings(
            api_key, base_url.rstrip("/"), poll_timeout, min(25, long_poll_seconds), resubmit_delay, max_server_retries, server_retry_base
        )
        self._http = http or httpx.AsyncClient(timeout=httpx.Timeout(10.0, read=35.0))

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncProspectEnrichment:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def submit(self, request: RequestLike, *, idempotency_key: str | None = None) -> Accepted:
        key = idempotency_key or str(uuid.uuid4())
        return cast(Accepted, await self._call("POST", "/research", json=_as_request(request), headers={"idempotency-key": key}))

    async def status(self, research_id: str, *, wait_seconds: int | None = None) -> StatusReply:
        return cast(StatusReply, await self._call("GET", _status_path(research_id, wait_seconds)))

    async def wait_for(self, research_id: str) -> StatusReply:
        started = time.monotonic()
        backoff = BACKOFF_START
        while True:
            remaining = self._settings.poll_timeout - (time.monotonic() - started)
            if remaining <= 0:
                raise ResearchTimeoutError(research_id, time.monotonic() - started)
            wait = max(1, min(self._settings.long_poll_seconds, int(remaining)))
            polled = time.monotonic()
            reply = await self.status(research_id, wait_seconds=wait)
            if reply["status"] in ("completed", "failed"):
                return reply
            if time.monotonic() - polled < wait / 2:
                await asyncio.sleep(min(backoff, max(0.0, remaining)))
                backoff = min(BACKOFF_MAX, backoff * BACKOFF_FACTOR)

    async def research(self, request: RequestLike, *, idempotency_key: str | None = None) -> CompletedReply:
        body = _as_request(request)
        first = await self.wait_for((await self.submit(body, idempotency_key=idempotency_key))["research_id"])
        if first["status"] == "completed":
            return first
        await asyncio.sleep(self._settings.resubmit_delay)
        second = await self.wait_for((await self.submit(body))["research_id"])
        if second["status"] == "completed":
            return second
        raise ResearchFailedError(second["research_id"], second["error"] if second["status"] == "failed" else "internal_error", first["research_id"])

    async def research_many(
        self,
        items: Sequence[RequestLike],
        *,
        concurrency: int = 5,
        on_progress: Callable[[Progress], None | Awaitable[None]] | None = None,
    ) -> list[ResearchManyResult]:
        requests = [_as_request(item) for item in items]
        results: list[ResearchManyResult | None] = [None] * len(requests)
        counts = {"done": 0, "succeeded": 0, "failed": 0}
        gate = asyncio.Semaphore(max(1, concurrency))

        async def one(index: int) -> None:
            async with gate:
                try:
                    result = ResearchManyResult(requests[index], reply=await self.research(requests[index]))
                except Exception as error:  # each item's own outcome
                    result = ResearchManyResult(requests[index], error=error)
            results[index] = result
            counts["done"] += 1
            counts["succeeded" if result.ok else "failed"] += 1
            if on_progress:
                outcome = on_progress(Progress(total=len(requests), last=result, **counts))
                if asyncio.iscoroutine(outcome):
                    await outcome

        await asyncio.gather(*(one(index) for index in range(len(requests))))
        return [cast(ResearchManyResult, result) for result in results]

    async def _call(self, method: str, path: str, *, json: Any = None, headers: dict[str, str] | None = None) -> Any:
        attempt = 0
        while True:
            try:
                response = await self._http.request(method, f"{self._settings.base_url}{path}", json=json, headers=_headers(self._settings, headers))
            except httpx.TransportError as error:
                if attempt >= self._settings.max_server_retries:
                    raise ProspectNetworkError(f"{method} {path}: no answer") from error
            else:
                if response.is_success:
                    return _json(response)
                if response.status_code < 500 or attempt >= self._settings.max_server_retries:
                    raise error_from_reply(response.status_code, _json(response))
            await asyncio.sleep(self._settings.server_retry_base * 2**attempt)
            attempt += 1

