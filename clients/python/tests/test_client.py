from __future__ import annotations

import threading
import time

import httpx
import pytest

from prospect_enrichment import (
    AsyncProspectEnrichment,
    CreditsError,
    ProspectApiError,
    ProspectEnrichment,
    ResearchFailedError,
    WebhookVerificationError,
    verify_webhook,
)


def client(stack: dict, key: str, base_url: str | None = None) -> ProspectEnrichment:
    return ProspectEnrichment(key, base_url or stack["apiUrl"], server_retry_base=0.05)


def test_full_job_then_cache_hit(stack: dict) -> None:
    with client(stack, stack["keys"]["main"]) as api:
        email = stack["emails"][0]
        reply = api.research({"email": email})
        assert reply["status"] == "completed"
        assert reply["data"]["prospect"]["email"] == email.lower()
        calls_before = httpx.get(f"{stack['providerUrl']}/__admin/calls").json()
        started = time.monotonic()
        again = api.research(email)
        assert again["status"] == "completed"
        assert again["research_id"] != reply["research_id"]
        assert httpx.get(f"{stack['providerUrl']}/__admin/calls").json() == calls_before, "a cache hit asks no provider"
        assert time.monotonic() - started < 5


async def test_async_client_researches(stack: dict) -> None:
    async with AsyncProspectEnrichment(stack["keys"]["main"], stack["apiUrl"]) as api:
        reply = await api.research(stack["emails"][1])
        assert reply["status"] == "completed"
        with pytest.raises(ProspectApiError) as caught:
            await api.status("res_doesnotexist")
        assert (caught.value.status, caught.value.code) == (404, "not_found")


def code_of(call) -> str:
    try:
        call()
    except ProspectApiError as error:
        return f"{error.status} {error.code}"
    return "no error"


def test_typed_errors_with_the_spec_codes(stack: dict) -> None:
    keys = stack["keys"]
    api = client(stack, keys["main"])
    assert code_of(lambda: client(stack, "").research("a@example.com")) == "401 missing_api_key"
    assert code_of(lambda: client(stack, "svc_live_" + "x" * 42).research("a@example.com")) == "401 invalid_key"
    assert code_of(lambda: api.research("not-an-email")) == "400 invalid_email_format"
    assert code_of(lambda: api.research({})) == "400 missing_email"  # type: ignore[typeddict-item]
    assert code_of(lambda: api.status("res_doesnotexist")) == "404 not_found"
    assert code_of(lambda: client(stack, keys["noProduct"]).research("a@example.com")) == "400 api_key_has_no_product"
    api.submit({"email": "first@example.com"}, idempotency_key="py-same-key")
    assert code_of(lambda: api.submit({"email": "second@example.com"}, idempotency_key="py-same-key")) == "409 idempotency_key_reused"

    with pytest.raises(CreditsError) as exhausted:
        client(stack, keys["exhausted"]).research("b@example.com")
    assert (exhausted.value.status, exhausted.value.code) == (429, "credits_exhausted")
    assert exhausted.value.limit > 0 and exhausted.value.used == exhausted.value.limit
    with pytest.raises(CreditsError) as trial:
        client(stack, keys["trial"]).research("c@example.com")
    assert (trial.value.code, trial.value.used, trial.value.limit) == ("trial_limit_reached", 3, 3)


def test_failed_job_is_resubmitted_once(stack: dict) -> None:
    """The first job waits on a slow provider past its deadline (6 s) and fails; before the
    resubmission (5 s later) the provider is quick again. The test file checks the account's jobs after."""
    provider = stack["providerUrl"]
    httpx.post(f"{provider}/__admin/config", json={"latency": {"*": {"meanMs": 20000}}}).raise_for_status()
    restore = threading.Timer(8.5, lambda: httpx.post(f"{provider}/__admin/config", json={"latency": {}, "replace": True}))
    restore.start()
    try:
        reply = client(stack, stack["keys"]["resubmit"]).research(stack["emails"][2])
    finally:
        restore.join()
    assert reply["status"] == "completed"


def test_gives_up_after_the_resubmission_also_failed(stack: dict) -> None:
    provider = stack["providerUrl"]
    httpx.post(f"{provider}/__admin/config", json={"latency": {"*": {"meanMs": 20000}}}).raise_for_status()
    try:
        with pytest.raises(ResearchFailedError) as caught:
            client(stack, stack["keys"]["failing"]).research(stack["emails"][3])
    finally:
        httpx.post(f"{provider}/__admin/config", json={"latency": {}, "replace": True}).raise_for_status()
    assert caught.value.code == "timeout"
    assert caught.value.first_research_id and caught.value.first_research_id != caught.value.research_id


def test_5xx_retried_at_most_3_times_with_one_idempotency_key(stack: dict) -> None:
    proxy = stack["proxyUrl"]
    api = client(stack, stack["keys"]["proxied"], base_url=proxy)
    # The API took the job but its answer was lost twice: the retry with the same key gets the same job.
    httpx.post(f"{proxy}/__fault", json={"count": 2, "status": 502, "after": True}).raise_for_status()
    accepted = api.submit({"email": stack["emails"][4]})
    assert accepted["status"] == "processing"
    httpx.post(f"{proxy}/__fault", json={"count": 4, "status": 503}).raise_for_status()
    with pytest.raises(ProspectApiError) as caught:
        api.status(accepted["research_id"])
    assert caught.value.status == 503
    httpx.post(f"{proxy}/__fault", json={"count": 0}).raise_for_status()
    assert api.status(accepted["research_id"])["research_id"] == accepted["research_id"]


def test_research_many_with_progress(stack: dict) -> None:
    progress: list[int] = []
    results = client(stack, stack["keys"]["main"]).research_many(
        [*stack["emails"][5:8], "not-an-email"], concurrency=2, on_progress=lambda p: progress.append(p.done)
    )
    assert [result.ok for result in results] == [True, True, True, False]
    assert isinstance(results[3].error, ProspectApiError) and results[3].error.code == "invalid_email_format"
    assert progress == [1, 2, 3, 4]


def test_verifies_a_delivered_webhook(stack: dict) -> None:
    hook = stack["webhook"]
    reply = client(stack, hook["key"]).research(stack["emails"][8])
    deadline = time.monotonic() + 20
    received: list = []
    while time.monotonic() < deadline and not received:
        received = httpx.get(f"{stack['receiverUrl']}/__admin/received", params={"hook": hook["path"]}).json()["received"]
        time.sleep(0.2)
    assert received, "no delivery arrived"
    got = received[0]
    headers = {"webhook-id": got["webhookId"], "webhook-timestamp": got["webhookTimestamp"], "webhook-signature": got["webhookSignature"]}
    event = verify_webhook(headers, got["body"], hook["secret"])
    assert event["type"] == "research.completed"
    assert event["data"]["research_id"] == reply["research_id"]
    with pytest.raises(WebhookVerificationError):
        verify_webhook(headers, got["body"].replace("completed", "failed"), hook["secret"])
    with pytest.raises(WebhookVerificationError):
        verify_webhook(headers, got["body"], "whsec_" + "A" * 32)
    with pytest.raises(WebhookVerificationError, match="too old"):
        verify_webhook(headers, got["body"], hook["secret"], now=time.time() + 600)
