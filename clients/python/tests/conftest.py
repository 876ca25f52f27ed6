"""The running stack these tests call, described by the environment (test/clients/python-client.test.ts sets it).

Every test needs the stack: without PE_API_URL the whole session fails rather than passing empty.
"""

from __future__ import annotations

import json
import os

import pytest


@pytest.fixture(scope="session")
def stack() -> dict:
    if "PE_STACK" not in os.environ:
        pytest.fail("PE_STACK is not set: run these tests through `npm test` (test/clients/python-client.test.ts)")
    return json.loads(os.environ["PE_STACK"])
