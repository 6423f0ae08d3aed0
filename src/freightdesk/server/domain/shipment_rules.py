"""Validation of a tracked shipment body beyond what its models check (field paths included).

`prepare` turns a PUT tracking body into what the store keeps: the user-provided data as on the
wire (stop and segment ids filled in), the identifier analysis (mode, sources) and the user's
events with their ids.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from freightdesk.models.tracking import (
    MAX_ATTRIBUTE_NAME,
    MAX_ATTRIBUTE_VALUE,
    MAX_ATTRIBUTE_VALUES,
    RouteInfo,
    TrackedShipmentEvent,
    TrackedShipmentInput,
)
from freightdesk.server.domain.identifiers import IdentifierAnalysis, analyze
from freightdesk.server.errors import field_errors


@dataclass(frozen=True)
class PreparedShipment:
    data: dict[str, Any]
    analysis: IdentifierAnalysis
    events: list[TrackedShipmentEvent]
    stop_ids: frozenset[str]
    segment_ids: frozenset[str]


def prepare(
    body: TrackedShipmentInput, *, visible_ids: Collection[str] = (), self_id: str | None = None
) -> PreparedShipment:
    """Check the body; `visible_ids` are the related shipment ids the caller can see."""
    planned = body.plan.expected_transportation_modes if body.plan else []
    analysis = analyze(body.identifiers, planned)
    problems: list[tuple[str, str]] = []
    _check_attributes(body, problems)
    _check_access_groups(body, problems)
    route = _route_with_ids(body.route_info, problems)
    stop_ids = frozenset(str(stop.id) for stop in route.stops) if route else frozenset()
    segment_ids = (
        frozenset(str(segment.id) for segment in route.route_segments) if route else frozenset()
    )
    _check_related(body, visible_ids, self_id, problems)
    events = _events_with_ids(body.events, stop_ids, segment_ids, problems)
    if problems:
        raise field_errors(problems)
    data = body.model_dump(
        mode="json",
        by_alias=True,
        exclude_none=True,
        include={
            "identifiers",
            "attributes",
            "access_groups",
            "costs",
            "plan",
            "route_info",
            "related_shipments",
        },
    )
    if route is not None:
        data["routeInfo"] = route.wire()
    for identifier in data["identifiers"]:
        identifier["value"] = identifier["value"].strip()
    return PreparedShipment(data, analysis, events, stop_ids, segment_ids)


def _check_attributes(body: TrackedShipmentInput, problems: list[tuple[str, str]]) -> None:
    names: dict[str, int] = {}
    for index, attribute in enumerate(body.attributes):
        path = f"attributes[{index}]"
        name = attribute.name.strip()
        if not name:
            problems.append((f"{path}.name", "must not be blank"))
        elif len(name) > MAX_ATTRIBUTE_NAME:
            problems.append((f"{path}.name", f"must be at most {MAX_ATTRIBUTE_NAME} characters"))
        elif name.casefold() in names:
            problems.append((f"{path}.name", f"duplicates attributes[{names[name.casefold()]}]"))
        else:
            names[name.casefold()] = index
        if attribute.value is not None and len(attribute.value) > MAX_ATTRIBUTE_VALUE:
            problems.append((f"{path}.value", f"must be at most {MAX_ATTRIBUTE_VALUE} characters"))
        if len(attribute.values) > MAX_ATTRIBUTE_VALUES:
            problems.append((f"{path}.values", f"at most {MAX_ATTRIBUTE_VALUES} values"))
        for position, value in enumerate(attribute.values):
            if len(value) > MAX_ATTRIBUTE_VALUE:
                problems.append(
                    (
                        f"{path}.values[{position}]",
                        f"must be at most {MAX_ATTRIBUTE_VALUE} characters",
                    )
                )


def _check_access_groups(body: TrackedShipmentInput, problems: list[tuple[str, str]]) -> None:
    seen: dict[uuid.UUID, int] = {}
    for index, group in enumerate(body.access_groups):
        if group.id in seen:
            problems.append(
                (f"accessGroups[{index}].id", f"duplicates accessGroups[{seen[group.id]}]")
            )
        else:
            seen[group.id] = index


def _route_with_ids(route: RouteInfo | None, problems: list[tuple[str, str]]) -> RouteInfo | None:
    if route is None:
        return None
    stops = []
    seen_stops: dict[uuid.UUID, int] = {}
    for index, stop in enumerate(route.stops):
        if stop.id is None:
            stop = stop.model_copy(update={"id": uuid.uuid4()})
        elif stop.id in seen_stops:
            problems.append(
                (
                    f"routeInfo.stops[{index}].id",
                    f"duplicates routeInfo.stops[{seen_stops[stop.id]}]",
                )
            )
        assert stop.id is not None
        seen_stops.setdefault(stop.id, index)
        stops.append(stop)
    segments = []
    seen_segments: dict[uuid.UUID, int] = {}
    for index, segment in enumerate(route.route_segments):
        path = f"routeInfo.routeSegments[{index}]"
        if segment.id is None:
            segment = segment.model_copy(update={"id": uuid.uuid4()})
        elif segment.id in seen_segments:
            problems.append(
                (f"{path}.id", f"duplicates routeInfo.routeSegments[{seen_segments[segment.id]}]")
            )
        assert segment.id is not None
        seen_segments.setdefault(segment.id, index)
        for field, value in (
            ("fromStopId", segment.from_stop_id),
            ("toStopId", segment.to_stop_id),
        ):
            if value is not None and value not in seen_stops:
                problems.append((f"{path}.{field}", "no stop of routeInfo.stops has this id"))
        if segment.from_stop_id is not None and segment.from_stop_id == segment.to_stop_id:
            problems.append((f"{path}.toStopId", "must differ from fromStopId"))
        segments.append(segment)
    return RouteInfo(stops=stops, route_segments=segments)


def _check_related(
    body: TrackedShipmentInput,
    visible_ids: Collection[str],
    self_id: str | None,
    problems: list[tuple[str, str]],
) -> None:
    seen: dict[uuid.UUID, int] = {}
    for index, related in enumerate(body.related_shipments):
        path = f"relatedShipments[{index}].id"
        if related.id in seen:
            problems.append((path, f"duplicates relatedShipments[{seen[related.id]}]"))
            continue
        seen[related.id] = index
        if self_id is not None and str(related.id) == self_id:
            problems.append((path, "a shipment cannot be related to itself"))
        elif str(related.id) not in visible_ids:
            problems.append((path, "no shipment with this id is visible to you"))


def related_ids(body: TrackedShipmentInput) -> list[str]:
    return [str(related.id) for related in body.related_shipments]


def _events_with_ids(
    events: list[TrackedShipmentEvent],
    stop_ids: frozenset[str],
    segment_ids: frozenset[str],
    problems: list[tuple[str, str]],
) -> list[TrackedShipmentEvent]:
    result = []
    seen: dict[uuid.UUID, int] = {}
    for index, event in enumerate(events):
        path = f"events[{index}]"
        if event.id is not None and event.id in seen:
            problems.append((f"{path}.id", f"duplicates events[{seen[event.id]}]"))
        if event.id is not None:
            seen.setdefault(event.id, index)
        if event.stop_id is not None and str(event.stop_id) not in stop_ids:
            problems.append((f"{path}.stopId", "no stop of routeInfo.stops has this id"))
        if event.route_segment_id is not None and str(event.route_segment_id) not in segment_ids:
            problems.append(
                (f"{path}.routeSegmentId", "no segment of routeInfo.routeSegments has this id")
            )
        result.append(event)
    return result
