"""Schemathesis over the service's own /openapi.json: no input gets a 5xx, and every answer
conforms to the schema the service publishes for it."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from freightdesk.server.db import transaction
from freightdesk.server.domain.tenants import set_feature
from freightdesk.server.tables.tenancy import Tenant
from tests.support import LiveService, make_tenant

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def fuzz_target(sqlite_service: LiveService) -> Iterator[tuple[str, str]]:
    tenant = make_tenant(sqlite_service)
    with transaction(sqlite_service.context.sessions) as session:
        row = session.query(Tenant).filter(Tenant.uuid == tenant.uuid).one()
        for feature in ("capacityCoop", "rateRequestCancellation"):
            set_feature(session, row, feature, True)
    token = tenant.http.headers["Authorization"]
    yield sqlite_service.url, token
    tenant.http.close()


@pytest.fixture(scope="module")
def api_schema(fuzz_target: tuple[str, str]) -> schemathesis.BaseSchema:
    url, _token = fuzz_target
    # The first build of the document can take a while on a busy machine.
    httpx.get(f"{url}/openapi.json", timeout=120).raise_for_status()
    return schemathesis.openapi.from_url(f"{url}/openapi.json")


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(
    max_examples=5,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_no_server_errors_and_documented_answers(
    case: schemathesis.Case, fuzz_target: tuple[str, str]
) -> None:
    url, token = fuzz_target
    case.call_and_validate(
        base_url=url,
        headers={"Authorization": token},
        checks=[not_a_server_error, response_schema_conformance],
    )
