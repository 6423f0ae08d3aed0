"""The tables of the Rate requests pane: the requests, the carriers' quotes (sortable by any
column), and the market rates beside them.

Quotes can come in different currencies (a Canadian carrier quotes in CAD, a Mexican one in
MXN) and the service gives no exchange rate, so amounts are compared only within one currency:
the cheapest quote of each currency is marked, the money columns sort by currency (US dollars
first) and then by amount, and a quote is set against the market only in the market's currency.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor, QFont

from freightdesk.models.booking import Booking, BookingStatus
from freightdesk.models.code_words import unit_text, words
from freightdesk.models.common import Currency, Measure, Money
from freightdesk.models.rating import (
    ACCESSORIAL_NAMES,
    MarketQuote,
    Quote,
    QuoteType,
    RateRequest,
    RateRequestStatus,
)
from freightdesk.service.bookings import status_text
from freightdesk.service.clock import day_text, user_time
from freightdesk.service.rating import effective_status
from freightdesk.ui.dialogs.booking_text import status_color
from freightdesk.ui.formatting import amount_text, place_text, valid_for_text, valid_until_text
from freightdesk.ui.widgets.listing import Column, ListingModel

Index = QModelIndex | QPersistentModelIndex
MUTED = QColor("#7a8294")

REQUEST_STATUS = {
    RateRequestStatus.QUOTES_REQUESTED: ("Waiting for quotes", QColor("#2f6fde")),
    RateRequestStatus.QUOTES_RECEIVED: ("Quotes received", QColor("#2e9d5b")),
    RateRequestStatus.EXPIRED: ("Expired", QColor("#8d6e63")),
    RateRequestStatus.CANCELLED: ("Cancelled", MUTED),
}


def request_status_text(request: RateRequest, booking: Booking | None = None) -> str:
    """ "Quotes received", or, once one of its quotes is booked, the booking's state: "Booked"
    (the carrier accepted), "Being booked" (waiting for the carrier's answer)."""
    if booking is not None:
        return "Booked" if booking.status is BookingStatus.BOOKED else "Being booked"
    return REQUEST_STATUS[effective_status(request)][0]


def is_booked_quote(quote: Quote, booking: Booking | None) -> bool:
    """Whether `booking` books `quote`: the same carrier, and the quote's number among the
    booking's rate identifiers (what a booking sends to book a quote)."""
    if (
        booking is None
        or booking.capacity_provider_identifier != quote.capacity_provider_identifier
    ):
        return False
    numbers = {i.value for i in quote.rate_identifiers}
    return any(r.value in numbers for r in booking.rate_identifiers)


def lane_of(request: RateRequest) -> str:
    stops = request.rate_detail.route_info.stops
    return " → ".join(place_text(s.location) or "?" for s in stops)


def mode_of(request: RateRequest) -> str:
    shipping = request.rate_detail.shipping_details
    if shipping is not None and shipping.ltl is not None:
        return "LTL"
    truck = shipping.truck if shipping else None
    if truck is None:
        return "Truckload"
    load = "partial" if truck.load_preference.value == "PARTIAL" else "full"
    return f"Truckload, {words(truck.trailer_type.value).lower()}, {load}"


def services_of(request: RateRequest) -> str:
    """The accessorial services asked for, e.g. "with liftgate, delivery appointment"."""
    shipping = request.rate_detail.shipping_details
    codes = [a.code for a in shipping.accessorials] if shipping else []
    names = [ACCESSORIAL_NAMES.get(code, words(code)).lower() for code in codes]
    return f"with {', '.join(names)}" if names else ""


class RequestsModel(ListingModel[RateRequest]):
    """The rate requests, the status coloured; a booked one says so (`booked`)."""

    STATUS = 4

    def __init__(self, parent: Any = None) -> None:
        columns: list[Column[RateRequest]] = [
            Column("Name", lambda r: r.name or "", 270),
            Column("Lane", lane_of, 260, tooltip=lane_of),
            Column(
                "Pickup",
                lambda r: day_text(r.rate_detail.pickup_date),
                90,
                value=lambda r: r.rate_detail.pickup_date,  # exported as ISO 8601
            ),
            Column("Freight", mode_of, 150, tooltip=mode_of),
            Column("Status", lambda r: request_status_text(r, self.booked.get(str(r.id))), 120),
            Column("Quotes", lambda r: str(len(r.quotes)), 60),
            Column(
                "Created",
                lambda r: user_time(r.created_date_time),
                125,
                value=lambda r: r.created_date_time,
            ),
        ]
        super().__init__(columns, parent)
        # Rate request id -> its live booking (being processed, under review or booked).
        self.booked: dict[str, Booking] = {}

    def set_booked(self, booked: dict[str, Booking]) -> None:
        self.booked = booked
        if self.items:
            top = self.index(0, self.STATUS)
            bottom = self.index(len(self.items) - 1, self.STATUS)
            self.dataChanged.emit(top, bottom)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == self.STATUS:
            request = self.item_at(index.row())
            if request is None:
                return None
            booking = self.booked.get(str(request.id))
            if booking is not None:
                return status_color(booking.status)
            return REQUEST_STATUS[effective_status(request)][1]
        return super().data(index, role)


@dataclass(frozen=True, kw_only=True)
class QuoteColumn(Column[Quote]):
    key: Callable[[Quote], Any]  # what the column sorts by
    numeric: bool = False


NO_CHARGES = Money(amount=0, currency=Currency.USD)


def _money_key(money: Money) -> tuple[bool, str, float]:
    return (money.currency is not Currency.USD, money.currency.value, money.amount)


def cheapest_per_currency(quotes: Sequence[Quote]) -> list[Quote]:
    """The cheapest quote (by total) of each currency, US dollars first; the first of equals
    in `quotes`' order."""
    cheapest: dict[Currency, Quote] = {}
    for quote in quotes:
        currency = quote.total_rate.currency
        best = cheapest.get(currency)
        if best is None or quote.total_rate.amount < best.total_rate.amount:
            cheapest[currency] = quote
    return sorted(cheapest.values(), key=lambda q: _money_key(q.total_rate))


def distance_text(distance: Measure) -> str:
    """ "1,105 mi", "1,778 km"."""
    return f"{distance.value:,.0f} {unit_text(distance.unit)}"


NOT_COMPARED = (
    "Quotes in different currencies are not compared: the service gives no exchange rate."
)


def _accessorials(quote: Quote) -> Money | None:
    if not quote.accessorial_charges:
        return None
    currency = quote.accessorial_charges[0].amount.currency
    return Money(amount=sum(c.amount.amount for c in quote.accessorial_charges), currency=currency)


# How long a quote can still be booked ("22 h", "2 d 4 h"), its end by the clock in the tooltip.
VALID_FOR = "Valid for"


def _valid_until(quote: Quote) -> str:
    """ "Valid until Dec 1 14:30 UTC (22 h more)": the time the quote's countdown ends."""
    text = valid_until_text(quote.expiration_date_time)
    return text[:1].upper() + text[1:]


class QuotesModel(ListingModel[Quote]):
    """The quotes of one request (`for_request`, then `set_items`); sorted by any column
    (`sort`), the service's order at first."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__((), parent)
        self.request: RateRequest | None = None
        self.booking: Booking | None = None  # the request's live booking
        self._rank: dict[str, int] = {}
        self._cheapest: set[str] = set()  # ids of the cheapest quote of each currency
        self._market: dict[tuple[QuoteType, Currency], float] = {}
        self._sort: tuple[int, Qt.SortOrder] | None = None
        # Kept as QuoteColumn (the base's `columns` are the same ones): their sort keys.
        self.quote_columns = [
            QuoteColumn(
                "Carrier", self._carrier, 190, key=lambda q: q.carrier_name.lower(),
            ),
            QuoteColumn(
                "Type", lambda q: q.quote_type.value.title(), 75, key=lambda q: q.quote_type
            ),
            QuoteColumn(
                "Total", lambda q: amount_text(q.total_rate), 90,
                key=lambda q: _money_key(q.total_rate), numeric=True,
            ),
            QuoteColumn(
                "Line haul", lambda q: amount_text(q.line_haul), 90,
                key=lambda q: _money_key(q.line_haul), numeric=True,
            ),
            QuoteColumn(
                "Fuel surcharge", lambda q: amount_text(q.fuel_surcharge), 110,
                key=lambda q: _money_key(q.fuel_surcharge), numeric=True,
            ),
            QuoteColumn(
                "Accessorials", lambda q: amount_text(_accessorials(q)) or "none", 95,
                key=lambda q: _money_key(_accessorials(q) or NO_CHARGES), numeric=True,
            ),
            QuoteColumn(
                "Transit", lambda q: f"{q.transit_days} day{'s' if q.transit_days != 1 else ''}",
                60, key=lambda q: q.transit_days, numeric=True,
            ),
            QuoteColumn(
                "Delivery by", lambda q: day_text(q.estimated_delivery_date), 90,
                key=lambda q: q.estimated_delivery_date or datetime.max.date(),
            ),
            QuoteColumn(
                "Service", lambda q: words(q.service_level), 75, key=lambda q: q.service_level
            ),
            QuoteColumn(
                VALID_FOR, lambda q: valid_for_text(q.expiration_date_time), 75,
                key=lambda q: q.expiration_date_time,
            ),
            QuoteColumn("vs market", self._versus_market, 75, key=self._versus_key, numeric=True),
        ]  # fmt: skip
        self.columns = list(self.quote_columns)

    # --- data ------------------------------------------------------------------------------

    def for_request(self, request: RateRequest | None, booking: Booking | None = None) -> None:
        """The request whose quotes `set_items` shows next: whether they can still be booked
        (`booking`, its live booking, marks the quote it books), and the market rates they
        are compared with."""
        self.request = request
        self.booking = booking
        self._market = {
            (m.quote_type, m.average_rate.currency): m.average_rate.amount
            for m in (request.market_quotes if request else [])
        }

    def set_items(self, items: Sequence[Quote]) -> None:
        """`items` in the service's order (cheapest first), shown in the order chosen."""
        self._rank = {str(q.id): i for i, q in enumerate(items)}
        self._cheapest = {str(q.id) for q in cheapest_per_currency(items)}
        quotes = list(items)
        if self._sort is not None:
            self._sort_rows(quotes, *self._sort)
        super().set_items(quotes)

    def _carrier(self, quote: Quote) -> str:
        """ "Prairie Line Freight (PRLF)", and the booking's state on the quote booked."""
        text = f"{quote.carrier_name} ({quote.capacity_provider_identifier.value})"
        if self.booking is not None and is_booked_quote(quote, self.booking):
            return f"{text} · {status_text(self.booking.status)}"
        return text

    def _versus(self, quote: Quote) -> float | None:
        average = self._market.get((quote.quote_type, quote.total_rate.currency))
        if not average:
            return None
        return (quote.total_rate.amount - average) / average * 100

    def _versus_market(self, quote: Quote) -> str:
        difference = self._versus(quote)
        return "" if difference is None else f"{difference:+.0f}%"

    def _versus_key(self, quote: Quote) -> float:
        difference = self._versus(quote)
        return difference if difference is not None else float("inf")

    def _expired(self, quote: Quote) -> bool:
        request = self.request
        if request is None:
            return True
        now = datetime.now(UTC)
        return (
            effective_status(request, now)
            not in (
                RateRequestStatus.QUOTES_REQUESTED,
                RateRequestStatus.QUOTES_RECEIVED,
            )
            or quote.expiration_date_time <= now
        )

    def refresh_countdowns(self) -> None:
        """Expiry texts move with the clock."""
        if self.items:
            top = self.index(0, 0)
            bottom = self.index(len(self.items) - 1, len(self.columns) - 1)
            self.dataChanged.emit(top, bottom, [Qt.ItemDataRole.DisplayRole])

    # --- the model -------------------------------------------------------------------------

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        quote = self.item_at(index.row()) if index.isValid() else None
        if quote is None:
            return None
        column = self.quote_columns[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return column.text(quote)
        if role == Qt.ItemDataRole.TextAlignmentRole and column.numeric:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and self._expired(quote):
            return MUTED
        if role == Qt.ItemDataRole.FontRole and str(quote.id) in self._cheapest:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(quote, column.title)
        return None

    def _tooltip(self, quote: Quote, title: str) -> str:
        if title == "Accessorials" and quote.accessorial_charges:
            return "\n".join(
                f"{c.description or words(c.code)}: {amount_text(c.amount)}"
                for c in quote.accessorial_charges
            )
        if title == "vs market":
            return self._versus_tooltip(quote)
        if title == VALID_FOR and self._expired(quote):
            return "This quote can no longer be booked."
        if title == VALID_FOR:
            return _valid_until(quote)
        numbers = ", ".join(i.value for i in quote.rate_identifiers)
        about = (
            f"Quote {numbers}; {distance_text(quote.distance)}; {quote.transportation_mode.value}"
        )
        if title == "Total" and str(quote.id) in self._cheapest:
            currency = quote.total_rate.currency.value
            return f"{amount_text(quote.total_rate)}: the cheapest in {currency}.\n{NOT_COMPARED}"
        column = next(c for c in self.quote_columns if c.title == title)
        if column.numeric and title not in ("Transit", "vs market"):
            return f"{column.text(quote)}\n{about}"  # the whole amount, were it elided
        return about

    def _versus_tooltip(self, quote: Quote) -> str:
        currency = quote.total_rate.currency
        kind = quote.quote_type.value.lower()
        if self._versus(quote) is not None:
            return f"The total against the market's average for {kind} quotes in {currency.value}."
        if any(market_currency is currency for _type, market_currency in self._market):
            return f"No {kind} market rate in {currency.value} on this lane."
        return (
            f"No market rate in {currency.value}: the market rates on this lane are in "
            + (", ".join(sorted({c.value for _t, c in self._market})) or "no currency")
            + "; amounts in different currencies are not compared."
        )

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort by `column`; -1 is the service's order again. The selected quote stays
        selected, on its new row."""
        self.layoutAboutToBeChanged.emit()
        before = self.persistentIndexList()
        held = [self.item_at(index.row()) for index in before]
        if 0 <= column < len(self.columns):
            self._sort = (column, order)
            self._sort_rows(self.items, column, order)
        else:
            self._sort = None
            self.items.sort(key=lambda q: self._rank.get(str(q.id), 0))
        rows = {str(q.id): row for row, q in enumerate(self.items)}
        after = [
            self.index(rows[str(quote.id)], index.column()) if quote else QModelIndex()
            for index, quote in zip(before, held, strict=True)
        ]
        self.changePersistentIndexList(before, after)
        self.layoutChanged.emit()

    def _sort_rows(self, quotes: list[Quote], column: int, order: Qt.SortOrder) -> None:
        key = self.quote_columns[column].key
        quotes.sort(
            key=lambda q: (key(q), self._rank.get(str(q.id), 0)),
            reverse=order == Qt.SortOrder.DescendingOrder,
        )


def _market_columns() -> Sequence[Column[MarketQuote]]:
    return [
        Column("Market", lambda m: m.provider_name, 180),
        Column("Type", lambda m: m.quote_type.value.title(), 70),
        Column("Low", lambda m: amount_text(m.low_rate), 100),
        Column("Average", lambda m: amount_text(m.average_rate), 100),
        Column("High", lambda m: amount_text(m.high_rate), 100),
        Column(
            "Per distance",
            lambda m: f"{amount_text(m.average_rate_per_distance)}/{unit_text(m.distance.unit)}",
            110,
        ),
        Column("Distance", lambda m: distance_text(m.distance), 90),
        Column("Sample", lambda m: f"{m.sample_size:,} loads", 90),
    ]


class MarketModel(ListingModel[MarketQuote]):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(_market_columns(), parent)
