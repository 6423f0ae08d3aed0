"""A small PDF writer for the demo's shipping papers: bills of lading, air waybills and proofs
of delivery.

It writes PDF 1.4 by hand (no dependency): one page per document in the standard Helvetica
fonts (WinAnsi encoding, so Western European accents print; other letters are transliterated),
text, ruled boxes and a signature drawn with Bezier curves, content streams compressed with
zlib, and an exact cross-reference table so any reader opens the file without repairing it.
Output is deterministic: the same document gives the same bytes.
"""

from __future__ import annotations

import random
import unicodedata
import zlib
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from freightdesk.models.common import TransportationMode as Mode
from freightdesk.server.demo.geography import Place
from freightdesk.server.demo.itineraries import ShipmentPlan

LETTER = (612.0, 792.0)
A4 = (595.0, 842.0)

# Letters WinAnsi lacks and Unicode does not decompose into a base letter and an accent.
_TRANSLITERATE = str.maketrans({"ł": "l", "Ł": "L", "đ": "d", "Đ": "D"})


def pdf_string(text: str) -> bytes:
    """A PDF literal string in WinAnsi (cp1252), with ( ) \\ escaped."""
    text = text.translate(_TRANSLITERATE)
    chars = []
    for char in text:
        try:
            char.encode("cp1252")
            chars.append(char)
        except UnicodeEncodeError:
            base = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode()
            chars.append(base or "?")
    raw = "".join(chars).encode("cp1252")
    return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def _num(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


@dataclass
class Page:
    """One page's drawing operations, in points from the bottom-left corner."""

    size: tuple[float, float] = LETTER
    ops: list[bytes] = field(default_factory=list)

    def text(self, x: float, y: float, text: str, size: float = 9, bold: bool = False) -> None:
        font = b"/F2" if bold else b"/F1"
        self.ops.append(
            b"BT "
            + font
            + f" {_num(size)} Tf {_num(x)} {_num(y)} Td ".encode()
            + pdf_string(text)
            + b" Tj ET"
        )

    def line(self, x1: float, y1: float, x2: float, y2: float, width: float = 0.6) -> None:
        self.ops.append(
            f"{_num(width)} w {_num(x1)} {_num(y1)} m {_num(x2)} {_num(y2)} l S".encode()
        )

    def box(self, x: float, y: float, w: float, h: float, shade: float | None = None) -> None:
        if shade is not None:
            self.ops.append(
                f"q {_num(shade)} g {_num(x)} {_num(y)} {_num(w)} {_num(h)} re f Q".encode()
            )
        self.ops.append(f"0.6 w {_num(x)} {_num(y)} {_num(w)} {_num(h)} re S".encode())

    def signature(self, x: float, y: float, width: float, seed: int) -> None:
        """A handwritten-looking flourish shaped by `seed`: a tall initial, then loops of
        uneven width and height that drift along the baseline, and a closing stroke."""
        shape = random.Random(seed)
        parts = [f"q 0.1 0.15 0.45 RG 1.1 w {_num(x)} {_num(y)} m"]
        parts.append(
            f"{_num(x + 4)} {_num(y + 26)} {_num(x + 14)} {_num(y + 24)} "
            f"{_num(x + 9)} {_num(y - 4)} c"
        )
        cursor = x + 9
        end = x + width * 0.85
        while cursor < end:
            step = shape.uniform(7, 16)
            rise = shape.uniform(5, 15)
            drift = shape.uniform(-2, 2)
            parts.append(
                f"{_num(cursor + step * 0.1)} {_num(y + rise)} {_num(cursor + step)} "
                f"{_num(y + rise * 0.9)} {_num(cursor + step * 0.55)} {_num(y + drift)} c"
            )
            cursor += step * 0.8
        parts.append(
            f"{_num(cursor + 10)} {_num(y - 8)} {_num(x + width * 0.6)} {_num(y - 5)} "
            f"{_num(x + width)} {_num(y + 3)} c S Q"
        )
        self.ops.append(" ".join(parts).encode())

    def content(self) -> bytes:
        return b"\n".join(self.ops)


def render(page: Page, title: str, created: datetime) -> bytes:
    """The complete PDF file of one page."""
    stamp = created.astimezone(ZoneInfo("UTC")).strftime("D:%Y%m%d%H%M%SZ")
    stream = zlib.compress(page.content(), 9)
    width, height = page.size
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {_num(width)} {_num(height)}] "
            "/Resources << /Font << /F1 4 0 R /F2 5 0 R >> >> /Contents 6 0 R >>"
        ).encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>",
        f"<< /Length {len(stream)} /Filter /FlateDecode >>\nstream\n".encode()
        + stream
        + b"\nendstream",
        b"<< /Title "
        + pdf_string(title)
        + b" /Producer (FreightDesk demo) /CreationDate ("
        + stamp.encode()
        + b") >>",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info {len(objects)} 0 R >>\n"
        f"startxref\n{xref}\n%%EOF\n"
    ).encode()
    return bytes(out)


# --- the demo's documents ----------------------------------------------------------------------


def _address_lines(place: Place) -> list[str]:
    region = f"{place.city}, {place.state} {place.postal_code}".strip()
    return [line for line in (place.name, place.street, region, place.country) if line]


def _local(moment: datetime, place: Place) -> str:
    local = moment.astimezone(ZoneInfo(place.time_zone))
    return f"{local:%Y-%m-%d %H:%M} {local.tzname()}"


def _identifier(plan: ShipmentPlan, *types: str) -> str:
    for wanted in types:
        for kind, value in plan.identifiers:
            if kind == wanted:
                return value
    return "-"


def _header(page: Page, title: str, subtitle: str) -> float:
    width, height = page.size
    top = height - 50
    page.box(40, top - 34, width - 80, 40, shade=0.92)
    page.text(50, top - 14, title, size=15, bold=True)
    page.text(50, top - 28, subtitle, size=8)
    page.text(width - 190, top - 14, "Alder & Finch", size=12, bold=True)
    page.text(width - 190, top - 27, "Shipping and receiving", size=8)
    return top - 50


def _party(page: Page, x: float, y: float, w: float, label: str, place: Place) -> None:
    page.box(x, y - 70, w, 70)
    page.text(x + 6, y - 12, label, size=7, bold=True)
    for index, line in enumerate(_address_lines(place)):
        page.text(x + 6, y - 25 - index * 11, line, size=9)


def _fields(page: Page, x: float, y: float, rows: list[tuple[str, str]]) -> float:
    for label, value in rows:
        page.text(x, y, label, size=7, bold=True)
        page.text(x + 110, y, value, size=9)
        y -= 14
    return y


def bill_of_lading(plan: ShipmentPlan) -> bytes:
    """The shipper's bill of lading (ocean: the carrier's; air: the air waybill)."""
    page = Page(size=LETTER if plan.region.value == "NA" else A4)
    width, _height = page.size
    origin, destination = plan.origin, plan.destination
    if plan.mode is Mode.AIR:
        title, number = "AIR WAYBILL", _identifier(plan, "AIR_WAYBILL")
        subtitle = "Not negotiable. Issued by the carrier as agent of the shipper."
    elif plan.mode is Mode.OCEAN:
        title = "BILL OF LADING FOR OCEAN TRANSPORT"
        number = _identifier(plan, "BILL_OF_LADING", "HOUSE_BILL_OF_LADING")
        subtitle = "Shipped on board in apparent good order and condition."
    else:
        title, number = "STRAIGHT BILL OF LADING", _identifier(plan, "BILL_OF_LADING")
        subtitle = "Short form. Original, not negotiable."
    y = _header(page, title, subtitle)
    issued = origin.departure
    y = _fields(
        page,
        50,
        y,
        [
            ("Number", number),
            ("Date", _local(issued, origin.place)),
            ("Carrier", f"{plan.carrier.name} ({plan.carrier.scac})"),
            ("Purchase order", _identifier(plan, "PURCHASE_ORDER", "REFERENCE_NUMBER")),
            ("PRO / booking", _identifier(plan, "PRO", "BOOKING_NUMBER", "TRACKING_NUMBER")),
        ],
    )
    for leg in plan.legs:
        for kind, value in leg.identifiers:
            y = _fields(page, 50, y, [(kind.replace("_", " ").capitalize(), value)])
    y -= 8
    half = (width - 90) / 2
    _party(page, 40, y, half, "SHIP FROM", origin.place)
    _party(page, 50 + half, y, half, "SHIP TO", destination.place)
    y -= 90
    page.box(40, y - 20, width - 80, 20, shade=0.92)
    columns = (("Pieces", 46), ("Package", 110), ("Description", 190), ("Weight", width - 150))
    for label, x in columns:
        page.text(x, y - 14, label, size=8, bold=True)
    unit = "LB" if plan.region.value == "NA" else "KG"
    weight = plan.weight_kg * (2.20462 if unit == "LB" else 1)
    row = (str(plan.pieces), plan.package.title(), plan.commodity, f"{weight:,.0f} {unit}")
    for (_label, x), value in zip(columns, row, strict=True):
        page.text(x, y - 36, value, size=9)
    page.box(40, y - 50, width - 80, 50)
    y -= 80
    page.text(50, y, "Freight charges: prepaid. Bill to Alder & Finch, Accounts Payable.", size=8)
    page.text(
        50,
        y - 12,
        "Received, subject to the classifications and tariffs in effect on the date of issue.",
        size=8,
    )
    y -= 60
    page.line(50, y, 250, y)
    page.line(width - 250, y, width - 50, y)
    page.signature(60, y + 8, 150, seed=plan.number * 7 + 3)
    page.signature(width - 240, y + 8, 140, seed=plan.number * 11 + 5)
    page.text(50, y - 12, "Shipper: Alder & Finch", size=8)
    page.text(width - 250, y - 12, f"Carrier: {plan.carrier.name}", size=8)
    return render(page, f"{title.title()} {number}", issued)


def proof_of_delivery(plan: ShipmentPlan, receiver: str, remarks: str) -> bytes:
    page = Page(size=LETTER if plan.region.value == "NA" else A4)
    width, _height = page.size
    destination = plan.destination
    y = _header(page, "PROOF OF DELIVERY", "Delivery receipt signed by the consignee.")
    y = _fields(
        page,
        50,
        y,
        [
            ("Bill of lading", _identifier(plan, "BILL_OF_LADING")),
            ("PRO number", _identifier(plan, "PRO")),
            ("Carrier", f"{plan.carrier.name} ({plan.carrier.scac})"),
            ("Arrived", _local(destination.arrival, destination.place)),
            ("Delivered", _local(destination.departure, destination.place)),
            ("Pieces delivered", f"{plan.pieces} {plan.package.lower()}s"),
            ("Remarks", remarks),
        ],
    )
    y -= 8
    _party(page, 40, y, width - 80, "DELIVERED TO", destination.place)
    y -= 130
    page.line(50, y, 300, y)
    page.signature(60, y + 8, 180, seed=plan.number * 13 + 1)
    page.text(50, y - 12, f"Received by: {receiver}", size=9)
    page.text(width - 220, y - 12, f"Date: {_local(destination.departure, destination.place)}")
    return render(
        page, f"Proof of delivery {_identifier(plan, 'BILL_OF_LADING')}", destination.departure
    )
