"""Yard management: appointment slots at a site's dock doors."""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum
from typing import Self

from pydantic import AwareDatetime, Field, field_validator, model_validator

from freightdesk.models.base import StrictWireModel, WireModel

MAX_WINDOW_DAYS = 14


class SlotWindow(StrictWireModel):
    """The interface spells these two fields in snake_case on the wire."""

    start_date_time: AwareDatetime = Field(alias="start_date_time")
    end_date_time: AwareDatetime = Field(alias="end_date_time")

    @field_validator("start_date_time", "end_date_time")
    @classmethod
    def _plausible(cls, value: datetime) -> datetime:
        if not 1900 <= value.year <= 2999:
            raise ValueError("must be a date-time between the years 1900 and 2999")
        return value

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.end_date_time <= self.start_date_time:
            raise ValueError("end_date_time must be after start_date_time")
        if self.end_date_time - self.start_date_time > timedelta(days=MAX_WINDOW_DAYS):
            raise ValueError(f"the window may span at most {MAX_WINDOW_DAYS} days")
        return self


class SlotIdentifiers(StrictWireModel):
    shipment_reference: str = Field(min_length=1, max_length=100)
    site_code: str = Field(min_length=1, max_length=40)
    stop_sequence_number: int | None = Field(default=None, ge=1, le=100)


class SlotQuery(StrictWireModel):
    appointment_window: SlotWindow
    identifiers: SlotIdentifiers


class SlotStatus(StrEnum):
    AVAILABLE = "AVAILABLE"
    FULLY_BOOKED = "FULLY_BOOKED"
    CLOSED = "CLOSED"


class SlotResult(WireModel):
    slot_id: str
    site_code: str
    site_name: str
    start_date_time: datetime
    end_date_time: datetime
    capacity: int
    booked_count: int
    remaining_capacity: int
    # Bookable: a door is free and the slot has not started yet.
    available: bool
    dock_doors: list[str] = Field(default_factory=list, description="Doors free in this slot")
    # The shipment (and stop) asked about already holds an appointment in this slot.
    already_booked: bool = False


class SlotAnswer(WireModel):
    status: SlotStatus
    results: list[SlotResult]
