"""Freight in the rate engine's units (pounds, inches), whatever units the request used; the
units a carrier rates in; the linear feet of trailer floor the freight takes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from freightdesk.models.booking import CarrierProfile, SystemOfMeasurement
from freightdesk.models.vltl import EnhancedHandlingUnit, LineItem
from freightdesk.server.domain import rate_engine as engine
from freightdesk.server.errors import field_error
from freightdesk.server.tables.tenancy import Tenant

# Computing totalLinearFeet from the line items; on unless the tenant switched it off.
VOLUME_FEATURE = "volumeVisualization"
NATIVE_LENGTHS = {
    SystemOfMeasurement.IMPERIAL: {"IN", "FT"},
    SystemOfMeasurement.METRIC: {"CM", "M"},
}
NATIVE_WEIGHT = {SystemOfMeasurement.IMPERIAL: "LB", SystemOfMeasurement.METRIC: "KG"}


@dataclass(frozen=True)
class Line:
    """One line of freight in pounds and inches, whatever units the request used."""

    count: int
    weight_lb: float
    freight_class: str
    dims_in: tuple[float, float, float] | None
    stackable: bool
    hazmat: bool


def _dims(dimensions: Any, length_unit: str) -> tuple[float, float, float] | None:
    if dimensions is None:
        return None
    return (
        engine.inches(dimensions.length, length_unit),
        engine.inches(dimensions.width, length_unit),
        engine.inches(dimensions.height, length_unit),
    )


def item_lines(
    items: Sequence[LineItem], weight_unit: str, length_unit: str, problems: list[tuple[str, str]]
) -> list[Line]:
    lines = []
    for index, item in enumerate(items):
        path = f"lineItems[{index}]"
        count = item.total_packages or item.total_pieces or 1
        dims = _dims(item.package_dimensions, length_unit)
        if item.total_weight is None:
            problems.append((f"{path}.totalWeight", "is required"))
            continue
        weight = engine.pounds(item.total_weight, weight_unit)
        freight_class = item.freight_class
        if freight_class is None and dims is not None:
            freight_class = engine.density_class(weight / count, *dims)
        if freight_class is None:
            problems.append((f"{path}.freightClass", "is required (or give packageDimensions)"))
            continue
        lines.append(
            Line(count, weight, freight_class, dims, item.stackable, item.hazmat_detail is not None)
        )
    return lines


def unit_lines(
    units: Sequence[EnhancedHandlingUnit],
    weight_unit: str,
    length_unit: str,
    problems: list[tuple[str, str]],
) -> list[Line]:
    lines = []
    for index, unit in enumerate(units):
        path = f"enhancedHandlingUnits[{index}]"
        dims = _dims(unit.handling_unit_dimensions, length_unit)
        if unit.weight_per_handling_unit is not None:
            weight = unit.weight_per_handling_unit * unit.handling_unit_quantity
        else:
            weight = sum(
                (p.weight_per_package or 0) * (p.package_quantity or 1) for p in unit.packages
            )
        if weight <= 0:
            problems.append((f"{path}.weightPerHandlingUnit", "is required"))
            continue
        weight = engine.pounds(weight, weight_unit)
        classes = list(unit.freight_classes) + [
            p.freight_class for p in unit.packages if p.freight_class
        ]
        # Several classes on one unit: the carrier bills the highest.
        freight_class = max(classes, key=float) if classes else None
        if freight_class is None and dims is not None:
            freight_class = engine.density_class(weight / unit.handling_unit_quantity, *dims)
        if freight_class is None:
            problems.append(
                (f"{path}.freightClasses", "is required (or give handlingUnitDimensions)")
            )
            continue
        hazmat = any(c.hazmat_details for p in unit.packages for c in p.package_contents)
        lines.append(
            Line(unit.handling_unit_quantity, weight, freight_class, dims, unit.stackable, hazmat)
        )
    return lines


def unit_problem(profile: CarrierProfile, weight_unit: str, length_unit: str) -> str | None:
    system = profile.system_of_measurement
    if weight_unit == NATIVE_WEIGHT[system] and length_unit in NATIVE_LENGTHS[system]:
        return None
    units = f"{NATIVE_WEIGHT[system]} and {'/'.join(sorted(NATIVE_LENGTHS[system]))}"
    return (
        f"{profile.name} rates in {units}; set apiConfiguration.enableUnitConversion to have "
        f"{weight_unit} and {length_unit} converted"
    )


def linear_feet(session: Session, tenant_id: int, given: int | None, lines: Sequence[Line]) -> int:
    if given is not None:
        return given
    tenant = session.get(Tenant, tenant_id)
    enabled = bool((tenant.features or {}).get(VOLUME_FEATURE, True)) if tenant else True
    if not enabled:
        raise field_error(
            "totalLinearFeet", f"is required (the {VOLUME_FEATURE} feature is off for this tenant)"
        )
    if any(line.dims_in is None for line in lines):
        raise field_error(
            "totalLinearFeet",
            "is required unless every line item gives its dimensions to compute it from",
        )
    return engine.linear_feet(
        engine.FloorUnits(line.count, *line.dims_in, stackable=line.stackable)  # type: ignore[misc]
        for line in lines
    )
