"""The simulated carriers: who they are, how they answer, and the loop that runs their answers.

Every SCAC is a carrier the service can simulate. A few fictional carriers are built in (the
tenant's "connected" carriers, asked when a rate request names none); any other SCAC gets
defaults derived from it. A tenant overrides any of it per SCAC with a carrier profile
(``PUT /services/carriers/v1/profiles/{scac}``, an extension): behaviour (ACCEPT, DECLINE,
REVIEW, SLOW), delays, the account groups the carrier belongs to, units, currency, limits.

Carriers answer in the background: quotes and booking answers are rows with a due time, which
the loop of `carrier_answers` looks after.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from freightdesk.models.account_groups import find_code
from freightdesk.models.booking import (
    CarrierBehaviour,
    CarrierMode,
    CarrierProfile,
    CarrierProfileInput,
    DistanceUnit,
    SystemOfMeasurement,
)
from freightdesk.models.carrier_words import derived_carrier_name
from freightdesk.models.common import Currency
from freightdesk.server.db import utcnow
from freightdesk.server.domain.account_groups import group_code
from freightdesk.server.domain.carrier_names import known_names
from freightdesk.server.domain.rate_engine import CarrierTerms, unit_interval
from freightdesk.server.errors import field_error
from freightdesk.server.tables.booking import CarrierProfileRow

log = logging.getLogger(__name__)

DEFAULT_RESPONSE_DELAY_SECONDS = 2.0
SLOW_RESPONSE_DELAY_SECONDS = 15 * 60.0
DEFAULT_MAX_LINE_ITEMS = 20

_ALL_MODES = [CarrierMode.TL, CarrierMode.LTL, CarrierMode.VLTL]

# Fictional carriers every tenant is connected to. Only what differs from the defaults.
CATALOGUE: dict[str, dict[str, Any]] = {
    "PRLF": {"name": "Prairie Line Freight", "modes": ["TL"]},
    "BLRT": {"name": "Blue Ridge Transport", "modes": ["TL", "VLTL"]},
    "CSCX": {"name": "Coastal Star Carriers", "modes": ["TL"]},
    "IRHX": {"name": "Iron Horse Express", "modes": ["TL", "LTL"]},
    "GLKT": {"name": "Great Lakes Trucking", "modes": ["TL", "LTL"], "behaviour": "REVIEW"},
    "NBFL": {
        "name": "Northbridge Freight Lines",
        "modes": ["LTL", "VLTL"],
        "alternateScacs": ["NBFC"],
    },
    "RDRN": {"name": "Redrun Logistics", "modes": ["LTL", "VLTL"]},
    "KSTL": {
        "name": "Keystone LTL",
        "modes": ["LTL", "VLTL"],
        "maxLineItems": 5,
        "supportsEnhancedHandlingUnits": False,
    },
    "HRZN": {"name": "Horizon Volume Freight", "modes": ["VLTL"], "acceptsTermsOverrides": False},
    "MPLF": {
        "name": "Maple Leaf Freightways",
        "modes": ["TL", "LTL", "VLTL"],
        "distanceUnit": "KM",
        "currency": "CAD",
        "systemOfMeasurement": "METRIC",
    },
    "TRNX": {
        "name": "Transnorte Express",
        "modes": ["TL"],
        "distanceUnit": "KM",
        "currency": "MXN",
        "systemOfMeasurement": "METRIC",
    },
}


def normalize_scac(value: str) -> str:
    return value.strip().upper()


def _defaults(scac: str) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": known_names().get(scac) or derived_carrier_name(scac),
        "behaviour": CarrierBehaviour.ACCEPT.value,
        "modes": [mode.value for mode in _ALL_MODES],
        "distanceUnit": DistanceUnit.MI.value,
        "currency": Currency.USD.value,
        "systemOfMeasurement": SystemOfMeasurement.IMPERIAL.value,
        "maxLineItems": DEFAULT_MAX_LINE_ITEMS,
        "supportsEnhancedHandlingUnits": True,
        "acceptsTermsOverrides": True,
        "alternateScacs": [],
        "accountGroupCodes": [],
        # Carriers answer quote requests within 30 to 150 ms, each at its own pace.
        "quoteDelaySeconds": round(0.03 + 0.12 * unit_interval("quote-delay", scac), 3),
    }
    base.update(CATALOGUE.get(scac, {}))
    return base


def build_profile(scac: str, settings: dict[str, Any] | None) -> CarrierProfile:
    """The profile of a carrier: its defaults overlaid with the tenant's settings."""
    merged = _defaults(scac)
    merged.update(settings or {})
    if "responseDelaySeconds" not in merged:
        slow = merged["behaviour"] == CarrierBehaviour.SLOW.value
        merged["responseDelaySeconds"] = (
            SLOW_RESPONSE_DELAY_SECONDS if slow else DEFAULT_RESPONSE_DELAY_SECONDS
        )
    return CarrierProfile.model_validate({**merged, "scac": scac, "configured": bool(settings)})


def terms(profile: CarrierProfile) -> CarrierTerms:
    return CarrierTerms(
        scac=profile.scac,
        distance_unit=profile.distance_unit.value,
        currency=profile.currency.value,
    )


def resolve(session: Session, tenant_id: int, scacs: Iterable[str]) -> dict[str, CarrierProfile]:
    """The profiles of these carriers as the tenant sees them, by SCAC."""
    wanted = sorted({normalize_scac(s) for s in scacs})
    if not wanted:
        return {}
    stored = {
        row.scac: row.settings
        for row in session.scalars(
            select(CarrierProfileRow).where(
                CarrierProfileRow.tenant_id == tenant_id, CarrierProfileRow.scac.in_(wanted)
            )
        )
    }
    return {scac: build_profile(scac, stored.get(scac)) for scac in wanted}


def connected(session: Session, tenant_id: int) -> list[CarrierProfile]:
    """The built-in carriers and every carrier the tenant configured, by SCAC."""
    stored = {
        row.scac: row.settings
        for row in session.scalars(
            select(CarrierProfileRow).where(CarrierProfileRow.tenant_id == tenant_id)
        )
    }
    scacs = sorted(set(CATALOGUE) | set(stored))
    return [build_profile(scac, stored.get(scac)) for scac in scacs]


def names(session: Session, tenant_id: int, scacs: Iterable[str] | None = None) -> dict[str, str]:
    """The carriers' names as the tenant sees them, by SCAC: its profiles' (a built-in
    carrier's, or one it named), else the carriers the service knows. Of `scacs` when given,
    else of every carrier known; a carrier known to none goes without a name, not with the
    derived one."""
    if scacs is None:
        found = {**known_names(), **{p.scac: p.name for p in connected(session, tenant_id)}}
    else:
        found = {scac: p.name for scac, p in resolve(session, tenant_id, scacs).items()}
    return {scac: name for scac, name in found.items() if name != derived_carrier_name(scac)}


def serves(profile: CarrierProfile, mode: CarrierMode) -> bool:
    return mode in profile.modes


def group_members(session: Session, tenant_id: int, code: str) -> list[str]:
    """SCACs of the carriers the tenant put in the account group with this code (in any
    case: profiles saved before codes matched so may hold another spelling)."""
    return [
        p.scac
        for p in connected(session, tenant_id)
        if find_code(p.account_group_codes, code) is not None
    ]


def upsert_profile(
    session: Session, tenant_id: int, scac: str, body: CarrierProfileInput
) -> CarrierProfile:
    """Replace the tenant's settings for a carrier (absent fields fall back to defaults)."""
    scac = normalize_scac(scac)
    settings = body.model_dump(mode="json", by_alias=True, exclude_unset=True, exclude_none=True)
    stored: list[str] = []
    for index, code in enumerate(settings.get("accountGroupCodes", [])):
        found = group_code(session, tenant_id, code)
        if found is None:
            raise field_error(
                f"accountGroupCodes[{index}]",
                f"there is no capacity provider account group with code {code!r}",
            )
        stored.append(found)
    if "accountGroupCodes" in settings:  # kept as the groups spell them, each once
        settings["accountGroupCodes"] = list(dict.fromkeys(stored))
    if "alternateScacs" in settings:
        settings["alternateScacs"] = [normalize_scac(s) for s in settings["alternateScacs"]]
    row = session.scalar(
        select(CarrierProfileRow).where(
            CarrierProfileRow.tenant_id == tenant_id, CarrierProfileRow.scac == scac
        )
    )
    if row is None:
        row = CarrierProfileRow(tenant_id=tenant_id, scac=scac, settings=settings)
        session.add(row)
    else:
        row.settings = settings
        row.updated_at = utcnow()
    session.flush()
    return build_profile(scac, settings)


def delete_profile(session: Session, tenant_id: int, scac: str) -> bool:
    row = session.scalar(
        select(CarrierProfileRow).where(
            CarrierProfileRow.tenant_id == tenant_id,
            CarrierProfileRow.scac == normalize_scac(scac),
        )
    )
    if row is None:
        return False
    session.delete(row)
    return True
