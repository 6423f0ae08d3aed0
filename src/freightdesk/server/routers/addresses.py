"""Postal address validation: the same operation under /api/v3 and /api/v4."""

from __future__ import annotations

from fastapi import APIRouter

from freightdesk.models.addresses import AddressInput
from freightdesk.models.common import Address
from freightdesk.server.auth import PrincipalDep
from freightdesk.server.domain.addresses import normalize_or_raise
from freightdesk.server.openapi import ERRORS

router = APIRouter(tags=["Postal address validation"])

_SUMMARY = "Validate and normalize a postal address"
_DESCRIPTION = (
    "Answers the address in canonical form (ISO 3166 alpha-2 country, state abbreviation, "
    "postal code in the country's format) or 400 naming each field that cannot be valid. "
    "Checks format and region only; the existence of the street is not checked."
)


@router.post(
    "/api/v4/address/validate",
    responses=ERRORS,
    response_model_exclude_none=True,
    summary=_SUMMARY,
    description=_DESCRIPTION,
)
def validate_address_v4(body: AddressInput, principal: PrincipalDep) -> Address:
    return normalize_or_raise(body)


@router.post(
    "/api/v3/address/validate",
    responses=ERRORS,
    response_model_exclude_none=True,
    summary=_SUMMARY + " (v3)",
    description=_DESCRIPTION,
)
def validate_address_v3(body: AddressInput, principal: PrincipalDep) -> Address:
    return normalize_or_raise(body)
