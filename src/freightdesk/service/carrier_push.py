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
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from freightdesk.api.client import ApiClient
from freightdesk.models.push import (
    Ingestion,
    IngestionAccepted,
    IngestionStatus,
    ParcelStatusUpdate,
    TruckloadTrackingUpdate,
    future_problems,
)
from freightdesk.service.cache import Cache
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
    more_sensors: str = ""  # a JSON object of the other sensor readings


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
    """A typed number as a number; anything else as typed, for the model to refuse."""
    text = text.strip()
    try:
        value = float(text)
    except ValueError:
        return text
    return int(value) if value.is_integer() and "." not in text else value


def _given(**values: Any) -> dict[str, Any]:
    """The values typed (empty text and empty objects left out: absent on the wire)."""
    return {k: v for k, v in values.items() if v not in ("", None, {})}


def _text(value: str) -> str | None:
    return value.strip() or None


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
        sensor: dict[str, Any] = {}
        if typed.more_sensors.strip():
            try:
                more = json.loads(typed.more_sensors)
            except json.JSONDecodeError as exc:
                problems[SENSOR] = f"is not JSON: {exc.msg} (line {exc.lineno})"
                more = {}
            if not isinstance(more, dict):
                problems[SENSOR] = 'must be a JSON object, e.g. {"zones": []}'
                more = {}
            sensor.update(more)
        sensor.update(
            _given(
                ignitionStatus=_text(typed.ignition_status),
                ambientTemperature=_given(
                    value=_number(typed.temperature) if typed.temperature.strip() else None,
                    unit=_text(typed.temperature_unit) if typed.temperature.strip() else None,
                ),
                fuel=_given(
                    currentLevel=_number(typed.fuel_level) if typed.fuel_level.strip() else None,
                    fuelUnit=_text(typed.fuel_unit) if typed.fuel_level.strip() else None,
                ),
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
        return None, problems
    for path, message in future_problems(update, now or datetime.now(UTC)):
        problems.setdefault(path, message)
    return (None, problems) if problems else (update, {})


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
