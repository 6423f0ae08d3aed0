"""docs/scripting.md's examples, run as a script author would: each Python block of the guide
as a program of its own against the local service, with a client application's credentials in
the environment. A guide whose examples no longer work fails here."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.server.test_documents import created
from tests.support import LiveService, TenantHandle, make_tenant

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "scripting.md"
BLOCKS = re.findall(r"```python\n(.*?)```", GUIDE.read_text(), flags=re.DOTALL)


def _run(block: str, tenant: TenantHandle) -> str:
    env = {
        **os.environ,
        "FREIGHTDESK_URL": tenant.service.url,
        "FREIGHTDESK_CLIENT_ID": tenant.client_id,
        "FREIGHTDESK_CLIENT_SECRET": tenant.client_secret,
    }
    done = subprocess.run(
        [sys.executable, "-c", block], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.fixture
def script_tenant(sqlite_service: LiveService) -> TenantHandle:
    return make_tenant(sqlite_service)


def test_the_guide_has_its_four_examples() -> None:
    assert len(BLOCKS) == 4


def test_a_stop_location_is_created_and_found(script_tenant: TenantHandle) -> None:
    out = _run(BLOCKS[0], script_tenant)
    assert re.search(r"^created [0-9a-f-]{36} version 1$", out, flags=re.MULTILINE), out
    assert "found Scripted Dock 7" in out


def test_a_pushed_update_reaches_the_shipment_history(script_tenant: TenantHandle) -> None:
    out = _run(BLOCKS[1], script_tenant)
    assert re.search(r"^push PROCESSED matched \['[0-9a-f-]{36}'\]$", out, re.M), out
    assert re.search(r"^PICKED_UP \d{4}-", out, flags=re.MULTILINE), out


def test_documents_are_searched(script_tenant: TenantHandle) -> None:
    document = created(script_tenant.http)
    out = _run(BLOCKS[2], script_tenant).splitlines()
    assert out[0] == "1 documents"
    assert out[1] == f"{document['name']} {document['type']}"


def test_a_refusal_is_an_exception_with_the_error_body(script_tenant: TenantHandle) -> None:
    out = _run(BLOCKS[3], script_tenant)
    assert out.startswith("not found: 404 "), out


def test_the_package_exports_what_scripts_use() -> None:
    import freightdesk
    import freightdesk.api
    import freightdesk.models

    assert freightdesk.__version__
    # The client is freightdesk.api's (docs/scripting.md), not handed on by the package too.
    assert not hasattr(freightdesk, "ApiClient")
    for name in freightdesk.api.__all__:
        assert getattr(freightdesk.api, name) is not None
    for name in freightdesk.models.__all__:
        assert getattr(freightdesk.models, name).__name__ == name
    with pytest.raises(AttributeError):
        _ = freightdesk.models.NoSuchModel
