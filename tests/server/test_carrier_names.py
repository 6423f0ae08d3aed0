"""The carriers' names the local service gives (an extension): what the app shows a carrier's
code by. Every carrier it knows, as the tenant's carrier profiles name them; a code nobody
named is not listed."""

from __future__ import annotations

from collections.abc import Callable

from tests.support import TenantHandle

NAMES = "/services/carriers/v1/names"
PROFILES = "/services/carriers/v1/profiles"


def _names(tenant: TenantHandle) -> dict[str, str]:
    answer = tenant.http.get(NAMES)
    assert answer.status_code == 200, answer.text
    return {c["carrierCode"]: c["carrierName"] for c in answer.json()["carriers"]}


def test_the_carriers_known_are_named(tenant: TenantHandle) -> None:
    names = _names(tenant)
    assert names["PWTR"] == "Prairie Wind Transport"  # the demo's truckload carrier
    assert names["HOCS"] == "Hanseatic Ocean Carriers"  # an ocean carrier of the schedules
    assert names["HBLF"] == "Harborline Forwarding"  # a forwarder (FFW_SCAC)
    assert names["PRLF"] == "Prairie Line Freight"  # built in
    assert "QQZZ" not in names
    # A known carrier's profile starts from its name.
    assert tenant.http.get(f"{PROFILES}/PWTR").json()["name"] == "Prairie Wind Transport"


def test_the_tenants_profiles_name_carriers(
    tenant: TenantHandle, tenant_factory: Callable[..., TenantHandle]
) -> None:
    other = tenant_factory()
    assert tenant.http.put(f"{PROFILES}/PWTR", json={"name": "Prairie Wind"}).status_code == 200
    assert tenant.http.put(f"{PROFILES}/QQZZ", json={"name": "Quiz Freight"}).status_code == 200
    # Configured without a name of its own: still no name (its profile's "Carrier QQZY").
    assert tenant.http.put(f"{PROFILES}/QQZY", json={"behaviour": "SLOW"}).status_code == 200
    names = _names(tenant)
    assert names["PWTR"] == "Prairie Wind"
    assert names["QQZZ"] == "Quiz Freight"
    assert "QQZY" not in names
    # Another tenant's names are its own.
    theirs = _names(other)
    assert theirs["PWTR"] == "Prairie Wind Transport" and "QQZZ" not in theirs
    assert tenant.http.delete(f"{PROFILES}/PWTR").status_code == 204
    assert _names(tenant)["PWTR"] == "Prairie Wind Transport"


def test_names_need_credentials(tenant: TenantHandle) -> None:
    answer = tenant.http.get(NAMES, headers={"Authorization": "Bearer nope"})
    assert answer.status_code == 401
