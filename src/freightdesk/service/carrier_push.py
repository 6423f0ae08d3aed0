"""The carrier push console's service: acting as a carrier, send a truckload tracking update or
a parcel status update, follow its ingestion receipt until the service has applied it (to the
shipments it matched) or found none, keep a history of what was sent, and send again.

Forms are checked here with the models' own rules (`check_truckload`, `check_parcel`), the
clock rule with this computer's clock (`future_problems`), and problems are keyed by the paths
the service names in an error's `source`, so a form shows either side's beside its field.

A push is authenticated as every call of the interface is: a bearer token of a client
application. The profile's own client application pushes for its own tenant; a carrier tenant's
client application (its id and secret typed into the console) pushes as that carrier, for the
customer named by `customerAccountNumber`. Those credentials live only in memory for the
session: they are someone else's, tried for a moment, not the profile's to keep.

The history is kept in the profile's cache (newest first, at most `HISTORY_LIMIT`), so the
console opens with it; each entry holds the exact body sent, so a resend sends the same.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from freightdesk.api.client import ApiClient
from freightdesk.models.numbers import NumberRefused, read_number
from freightdesk.models.push import (
    SENSOR_READINGS,
    TIRES,
    ZONES,
    Ingestion,
    IngestionAccepted,
    IngestionStatus,
    ParcelStatusUpdate,
    TruckloadTrackingUpdate,
    future_problems,
)
from freightdesk.service.cache import Cache
from freightdesk.service.messages import plain, plain_words
from freightdesk.service.validation import problems_of

TRUCKLOAD = "TRUCKLOAD"
PARCEL = "PARCEL"
SENSOR = "truckload.readings.sensor"
_ID_WORDS = {"billOfLadingNumber": "BOL", "orderNumber": "order"}
HISTORY_KIND = "push:sent"
HISTORY_LIMIT = 200
# Receipts are asked for after 0.25 s, then twice as long each time, at most every 5 s: the
# local service applies a push within a second, a loaded one may take longer.
FOLLOW_FIRST = 0.25
FOLLOW_LONGEST = 5.0
# Statuses a receipt stays in until the service is done with the push.
_UNDER_WAY = {IngestionStatus.PENDING}

Push = TruckloadTrackingUpdate | ParcelStatusUpdate


@dataclass(frozen=True)
class SensorRow:
    """A row of the sensor's other readings as typed: which (a key of `SENSOR_READINGS`), the
    zone or tire it is of (`2 LO`: axle 2, position LO), its value and its unit's code."""

    reading: str
    of: str = ""
    value: str = ""
    unit: str = ""


@dataclass(frozen=True)
class TruckloadInput:
    """The truckload form as typed (text as typed; empty for not given)."""

    customer_account_number: str = ""
    bill_of_lading_number: str = ""
    order_number: str = ""
    with_event: bool = True
    event_type: str = ""
    event_date_time: str = ""
    stop_number: str = ""
    with_readings: bool = False
    readings_date_time: str = ""
    latitude: str = ""
    longitude: str = ""
    speed: str = ""
    heading: str = ""
    speed_unit: str = ""
    ignition_status: str = ""
    temperature: str = ""
    temperature_unit: str = ""
    fuel_level: str = ""
    fuel_unit: str = ""
    sensors: tuple[SensorRow, ...] = ()  # the sensor's other readings, one a row


@dataclass(frozen=True)
class ParcelInput:
    """The parcel form as typed."""

    carrier_type: str = "SCAC"
    carrier_value: str = ""
    tracking_numbers: str = ""  # separated by commas
    event_type: str = ""
    timestamp: str = ""
    description: str = ""
    estimated_time_of_arrival: str = ""
    latitude: str = ""
    longitude: str = ""
    city: str = ""
    state: str = ""
    postal_code: str = ""
    country: str = ""
    customer_account_number: str = ""


def _number(text: str) -> Any:
    """A typed number as a number, by the app's one rule (`2,5` is 2.5); anything else as
    typed, for the model to refuse and say why."""
    text = text.strip()
    try:
        value = read_number(text)
    except NumberRefused:
        return text
    if value is None:
        return text
    return int(value) if value.is_integer() and not {".", ","} & set(text) else value


def _given(**values: Any) -> dict[str, Any]:
    """The values typed (empty text and empty objects left out: absent on the wire)."""
    return {k: v for k, v in values.items() if v not in ("", None, {})}


def _text(value: str) -> str | None:
    return value.strip() or None


_TIRE = re.compile(r"(\d+)?\s*(.*)")


def _entry_of(group: str, of: str) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The key of the zone or tire `of` names, and its entry's identifying fields: a zone by
    its id (digits as a number), a tire by its axle (leading digits) and position (the rest)."""
    of = of.strip()
    if group == ZONES:
        zone: Any = int(of) if of.isdigit() else of
        return (zone,), _given(id=zone)
    found = _TIRE.fullmatch(of)
    axle, position = (found[1], found[2]) if found else (None, of)
    key = (int(axle) if axle else None, position or None)
    return key, _given(axle=key[0], position=key[1])


def _put(target: dict[str, Any], field: str, value: Any) -> bool:
    """`value` at `field` (dotted: `humidity.percentage`) in `target`; False when it holds one
    already."""
    *outer, last = field.split(".")
    for name in outer:
        target = target.setdefault(name, {})
    if last in target:
        return False
    target[last] = value
    return True


def sensor_wire(
    rows: tuple[SensorRow, ...], fuel_unit: str | None = None
) -> tuple[dict[str, Any], dict[str, int], dict[str, str]]:
    """The sensor readings of `rows` on the wire; where each row's value went (its path, as
    the service names it, to the row's index), so a problem there can be said of its row; and
    problems of rows that cannot go there. `fuel_unit`: the fuel level's, which a capacity
    shares (the reading has one unit)."""
    sensor: dict[str, Any] = {}
    entries: dict[str, dict[tuple[Any, ...], dict[str, Any]]] = {ZONES: {}, TIRES: {}}
    origin: dict[str, int] = {}
    problems: dict[str, str] = {}
    for index, row in enumerate(rows):
        reading = SENSOR_READINGS[row.reading]
        group, field = reading.path.split(".", 1)
        if group in entries:
            key, identity = _entry_of(group, row.of)
            entry = entries[group].setdefault(key, identity)
            place = f"{SENSOR}.{group}[{list(entries[group]).index(key)}]"
            for name in identity:
                origin.setdefault(f"{place}.{name}", index)
        else:
            entry = sensor.setdefault(group, {})
            place = f"{SENSOR}.{group}"
        path = f"{place}.{field}"
        origin.setdefault(path, index)
        value = _number(row.value) if reading.number else _text(row.value)
        if value in ("", None):
            problems.setdefault(path, "Enter its value, or remove the row")
            continue
        if not _put(entry, field, value):
            problems[f"{path}#{index}"] = "Read twice: remove one row"
            origin[f"{path}#{index}"] = index
            continue
        unit = _text(row.unit)
        if reading.unit_field and unit:
            held = fuel_unit if group == "fuel" and fuel_unit else entry.get(reading.unit_field)
            if held not in (None, unit):
                what = "the fuel level" if group == "fuel" else "this zone's other readings"
                problems.setdefault(path, f"Enter it in the same unit as {what}")
            entry.setdefault(reading.unit_field, unit)
    for group, found in entries.items():
        if found:
            sensor[group] = list(found.values())
    return sensor, origin, problems


def problems_in_words(
    problems: dict[str, str], rows: tuple[SensorRow, ...] = (), fuel_unit: str | None = None
) -> dict[str, str]:
    """`problems` (the models' or the service's, by field path) in a dispatcher's words, those
    about a row of the sensor's other readings (`rows`, as sent) said of that row under
    `SENSOR`, the table's own field ("Row 2, Zone humidity: Enter 100 or less")."""
    _sensor, origin, _problems = sensor_wire(rows, fuel_unit)
    shown: dict[str, str] = {}
    lines: list[tuple[int, str]] = []
    for path, message in problems.items():
        said = plain_words(path.split("#")[0], message)
        index = origin.get(path)
        if index is None:
            shown[path] = said
            continue
        reading = SENSOR_READINGS[rows[index].reading].words
        lines.append((index, f"Row {index + 1}, {reading}: {said}"))
    if lines:
        general = shown.pop(SENSOR, "")
        said_rows = [line for _index, line in sorted(lines)]
        shown[SENSOR] = "\n".join([general, *said_rows] if general else said_rows)
    return shown


def truckload_wire(typed: TruckloadInput) -> tuple[dict[str, Any], dict[str, str]]:
    """The body the form asks for, and problems of what could not be read (the JSON)."""
    problems: dict[str, str] = {}
    truckload: dict[str, Any] = {
        "identifiers": _given(
            billOfLadingNumber=_text(typed.bill_of_lading_number),
            orderNumber=_text(typed.order_number),
        )
    }
    if typed.with_event:
        truckload["shipmentEvent"] = _given(
            type=_text(typed.event_type),
            dateTime=_text(typed.event_date_time),
            stopNumber=_number(typed.stop_number) if typed.stop_number.strip() else None,
        )
    if typed.with_readings:
        level_unit = _text(typed.fuel_unit) if typed.fuel_level.strip() else None
        sensor, _origin, row_problems = sensor_wire(typed.sensors, level_unit)
        problems.update(row_problems)
        sensor.update(
            _given(
                ignitionStatus=_text(typed.ignition_status),
                ambientTemperature=_given(
                    value=_number(typed.temperature) if typed.temperature.strip() else None,
                    unit=_text(typed.temperature_unit) if typed.temperature.strip() else None,
                ),
                # The table's fuel readings (its type, capacity), and the level typed above.
                fuel={
                    **sensor.get("fuel", {}),
                    **_given(
                        currentLevel=_number(typed.fuel_level)
                        if typed.fuel_level.strip()
                        else None,
                        fuelUnit=level_unit,
                    ),
                },
            )
        )
        position = _given(
            latitude=_number(typed.latitude) if typed.latitude.strip() else None,
            longitude=_number(typed.longitude) if typed.longitude.strip() else None,
            speed=_number(typed.speed) if typed.speed.strip() else None,
            heading=_number(typed.heading) if typed.heading.strip() else None,
            speedUnit=_text(typed.speed_unit) if typed.speed.strip() else None,
        )
        truckload["readings"] = _given(
            dateTime=_text(typed.readings_date_time), position=position, sensor=sensor
        )
    body = _given(customerAccountNumber=_text(typed.customer_account_number))
    body["truckload"] = truckload
    return body, problems


def parcel_wire(typed: ParcelInput) -> dict[str, Any]:
    numbers = [n.strip() for n in typed.tracking_numbers.split(",") if n.strip()]
    geo = _given(
        latitude=_number(typed.latitude) if typed.latitude.strip() else None,
        longitude=_number(typed.longitude) if typed.longitude.strip() else None,
    )
    address = _given(
        city=_text(typed.city),
        state=_text(typed.state),
        postalCode=_text(typed.postal_code),
        country=_text(typed.country),
    )
    return _given(
        carrierIdentifier=_given(type=_text(typed.carrier_type), value=_text(typed.carrier_value)),
        shipmentIdentifiers=[{"type": "TRACKING_NUMBER", "value": n} for n in numbers],
        eventType=_text(typed.event_type),
        timestamp=_text(typed.timestamp),
        description=_text(typed.description),
        estimatedTimeOfArrival=_text(typed.estimated_time_of_arrival),
        location=_given(geoCoordinates=geo, address=address),
        customerAccountNumber=_text(typed.customer_account_number),
    )


def _checked(
    model: type[Push], body: dict[str, Any], problems: dict[str, str], now: datetime | None
) -> tuple[Push | None, dict[str, str]]:
    try:
        update = model.model_validate(body)
    except ValidationError as exc:
        for path, message in problems_of(exc).items():
            problems.setdefault(path, message)
        return None, plain(problems)
    for path, message in future_problems(update, now or datetime.now(UTC)):
        problems.setdefault(path, message)
    # In the form's words here, so every caller shows the same (the rules say wire names).
    return (None, plain(problems)) if problems else (update, {})


def check_truckload(
    typed: TruckloadInput, now: datetime | None = None
) -> tuple[TruckloadTrackingUpdate | None, dict[str, str]]:
    """The update the form asks for, or its problems by the service's field paths."""
    body, problems = truckload_wire(typed)
    if not typed.with_event and not typed.with_readings:
        problems["truckload"] = "needs at least one of shipmentEvent or readings"
    update, problems = _checked(TruckloadTrackingUpdate, body, problems, now)
    assert update is None or isinstance(update, TruckloadTrackingUpdate)
    return update, problems


def check_parcel(
    typed: ParcelInput, now: datetime | None = None
) -> tuple[ParcelStatusUpdate | None, dict[str, str]]:
    update, problems = _checked(ParcelStatusUpdate, parcel_wire(typed), {}, now)
    assert update is None or isinstance(update, ParcelStatusUpdate)
    return update, problems


@dataclass(frozen=True)
class SentPush:
    """One push sent from the console, and what became of it as far as followed."""

    id: str
    kind: str  # TRUCKLOAD or PARCEL
    body: dict[str, Any]  # the wire body, exactly as sent
    sent_at: float  # epoch seconds
    sent_as: str  # "profile" or the carrier client application's id
    ingestion_id: str | None = None
    status: str = "SENT"  # SENT (no receipt yet), or an IngestionStatus
    matched: tuple[str, ...] = ()
    error: str | None = None

    @property
    def update(self) -> Push:
        model = TruckloadTrackingUpdate if self.kind == TRUCKLOAD else ParcelStatusUpdate
        return model.model_validate(self.body)

    def summary(self) -> str:
        """What was pushed, in a few words: `BOL 0614… ARRIVAL_AT_STOP + readings`."""
        if self.kind == TRUCKLOAD:
            load = self.body.get("truckload", {})
            ids = load.get("identifiers", {})
            names = [f"{_ID_WORDS.get(k, k)} {ids[k]}" for k in ids]
            what = [load["shipmentEvent"].get("type", "event")] if "shipmentEvent" in load else []
            what += ["readings"] if "readings" in load else []
            return f"{', '.join(names)}: {' + '.join(what)}"
        numbers = [i.get("value", "") for i in self.body.get("shipmentIdentifiers", [])]
        return f"{', '.join(numbers)}: {self.body.get('eventType', '')}"

    def to_json(self) -> bytes:
        data = {**self.__dict__, "matched": list(self.matched)}
        return json.dumps(data).encode()

    @classmethod
    def from_json(cls, raw: bytes) -> SentPush:
        data = json.loads(raw)
        data["matched"] = tuple(data.get("matched", ()))
        return cls(**data)


def status_text(sent: SentPush) -> str:
    """The receipt in words, for the status line and the history."""
    if sent.status == "SENT":
        return "Sent; waiting for the receipt"
    status = IngestionStatus(sent.status)
    if status is IngestionStatus.PENDING:
        return "Accepted; waiting to be processed"
    if status is IngestionStatus.PROCESSED:
        count = len(sent.matched)
        return f"Processed: matched {count} shipment{'s' if count != 1 else ''}"
    if status is IngestionStatus.UNMATCHED:
        return "Unmatched: no shipment has these identifiers (the service tries again for a week)"
    return f"Failed: {sent.error or 'the service could not apply it'}"


@dataclass
class _Carrier:
    client_id: str
    client: ApiClient | None = field(default=None, repr=False)


class CarrierPushService:
    """The console's pushes; the client and the cache are the session's current ones."""

    def __init__(
        self,
        client: Callable[[], ApiClient],
        cache: Callable[[], Cache | None] = lambda: None,
        changed: Callable[[], None] = lambda: None,
    ) -> None:
        self._client = client
        self._cache = cache
        # Told when a followed push was applied: the shipments it matched changed.
        self._changed = changed
        self._carrier: _Carrier | None = None
        self._carrier_secret: str | None = None

    # --- who pushes ------------------------------------------------------------------------

    @property
    def pushing_as(self) -> str:
        return "profile" if self._carrier is None else self._carrier.client_id

    async def use_carrier(self, client_id: str | None, secret: str | None = None) -> None:
        """Push as this carrier client application from now on (None: as the profile). The
        credentials are tried at the first push: a wrong secret is refused there."""
        await self._close_carrier()
        if client_id:
            self._carrier = _Carrier(client_id.strip())
            self._carrier_secret = secret or ""

    def _pusher(self) -> ApiClient:
        own = self._client()
        if self._carrier is None:
            return own
        if self._carrier.client is None:
            self._carrier.client = ApiClient(
                own.base_url,
                client_id=self._carrier.client_id,
                client_secret=self._carrier_secret,
                retry=own.retry,
            )
        elif self._carrier.client.base_url != own.base_url:
            self._carrier.client.move_to(own.base_url)  # the Local sandbox's service moved
        return self._carrier.client

    async def _close_carrier(self) -> None:
        carrier, self._carrier, self._carrier_secret = self._carrier, None, None
        if carrier is not None and carrier.client is not None:
            await carrier.client.aclose()

    async def aclose(self) -> None:
        await self._close_carrier()

    # --- sending and following -------------------------------------------------------------

    async def send(self, update: Push) -> SentPush:
        """Push it; the entry (with its receipt's id) is in the history once accepted."""
        api = self._pusher().carrier_push
        accepted: IngestionAccepted | None
        if isinstance(update, TruckloadTrackingUpdate):
            kind, accepted = TRUCKLOAD, await api.truckload_tracking_update(update)
        else:
            kind, accepted = PARCEL, await api.parcel_status_update(update)
        sent = SentPush(
            id=uuid.uuid4().hex,
            kind=kind,
            body=update.wire(),
            sent_at=time.time(),
            sent_as=self.pushing_as,
            ingestion_id=None if accepted is None else accepted.ingestion_id,
        )
        await self._remember(sent)
        return sent

    async def resend(self, sent: SentPush) -> SentPush:
        """The same body again, as a new push (with its own receipt)."""
        return await self.send(sent.update)

    async def follow(
        self, sent: SentPush, progress: Callable[[SentPush], None] | None = None
    ) -> SentPush:
        """Ask for the receipt until the service is done with the push (processed, unmatched
        or failed), waiting longer each time; each answer goes to `progress`. Cancel the task
        to stop following (the push itself is not undone)."""
        if sent.ingestion_id is None:
            return sent
        delay = FOLLOW_FIRST
        while True:
            receipt = await self._pusher().carrier_push.ingestion(sent.ingestion_id)
            sent = _with_receipt(sent, receipt)
            await self._remember(sent)
            if progress is not None:
                progress(sent)
            if receipt.status not in _UNDER_WAY:
                self._changed()
                return sent
            await asyncio.sleep(delay)
            delay = min(delay * 2, FOLLOW_LONGEST)

    # --- history ---------------------------------------------------------------------------

    async def history(self) -> list[SentPush]:
        """What was sent, newest first."""
        cache = self._cache()
        if cache is None:
            return []
        rows = await asyncio.to_thread(cache.load, HISTORY_KIND)
        found = []
        for raw in rows:
            try:
                found.append(SentPush.from_json(raw))
            except (TypeError, ValueError, KeyError):
                continue  # written by another version: only a history
        return sorted(found, key=lambda s: s.sent_at, reverse=True)

    async def _remember(self, sent: SentPush) -> None:
        cache = self._cache()
        if cache is None:
            return
        await asyncio.to_thread(cache.put_many, HISTORY_KIND, [(sent.id, sent.to_json())])
        kept = await self.history()
        if len(kept) > HISTORY_LIMIT:
            old = [s.id for s in kept[HISTORY_LIMIT:]]
            await asyncio.to_thread(cache.delete_many, HISTORY_KIND, old)


def _with_receipt(sent: SentPush, receipt: Ingestion) -> SentPush:
    return replace(
        sent,
        status=receipt.status.value,
        matched=tuple(receipt.matched_shipment_ids),
        error=receipt.error,
    )
