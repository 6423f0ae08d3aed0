"""Shipment identifiers in the formats the industry uses, with their real check digits.

Each `make_*` draws a fresh number from the caller's `random.Random`; each `is_valid_*` checks
one (the tests use them, and so could an import that wants to catch typing errors).
"""

from __future__ import annotations

import random
import re
import string

# ISO 6346 gives letters the values 10 to 38, skipping multiples of 11.
_ISO6346_LETTERS: dict[str, int] = {}
_value = 10
for _letter in string.ascii_uppercase:
    if _value % 11 == 0:
        _value += 1
    _ISO6346_LETTERS[_letter] = _value
    _value += 1

_CONTAINER = re.compile(r"[A-Z]{3}[UJZ]\d{7}")
_AIR_WAYBILL = re.compile(r"(\d{3})-(\d{8})")
_WAGON = re.compile(r"\d{12}")


def iso6346_check_digit(code: str) -> int:
    """Check digit of a container's owner code, category letter and six-digit serial."""
    if len(code) != 10:
        raise ValueError("ISO 6346 needs the 10 characters before the check digit")
    total = 0
    for position, char in enumerate(code):
        value = _ISO6346_LETTERS[char] if char.isalpha() else int(char)
        total += value * (2**position)
    return total % 11 % 10


def make_container_id(rng: random.Random, owner: str) -> str:
    """An ISO 6346 container number such as `HOCU4170345` for owner code `HOC`."""
    body = f"{owner}U{rng.randrange(1_000_000):06d}"
    return f"{body}{iso6346_check_digit(body)}"


def is_valid_container_id(value: str) -> bool:
    return bool(_CONTAINER.fullmatch(value)) and iso6346_check_digit(value[:10]) == int(value[10])


def make_air_waybill(rng: random.Random, airline_prefix: str) -> str:
    """`PPP-SSSSSSSC`: airline prefix, 7-digit serial and its remainder modulo 7."""
    serial = rng.randrange(1_000_000, 9_999_999)
    return f"{airline_prefix}-{serial:07d}{serial % 7}"


def is_valid_air_waybill(value: str) -> bool:
    match = _AIR_WAYBILL.fullmatch(value)
    if match is None:
        return False
    digits = match.group(2)
    return int(digits[:7]) % 7 == int(digits[7])


def luhn_check_digit(payload: str) -> int:
    """Luhn (mod 10) check digit: UIC wagon numbers and many parcel tracking numbers."""
    total = 0
    for index, char in enumerate(reversed(payload)):
        digit = int(char)
        if index % 2 == 0:
            digit *= 2
            if digit > 9:
                digit -= 9
        total += digit
    return (10 - total % 10) % 10


def make_wagon_id(rng: random.Random, exchange: str, keeper_country: str, category: str) -> str:
    """A 12-digit UIC wagon number: exchange code (2 digits, e.g. 33 for bogie wagons in
    international traffic), keeper country (2, e.g. 80 for Germany), category (4), serial (3)
    and the Luhn check digit; written grouped as `33 80 4953 123-7`, stored as digits."""
    payload = f"{exchange}{keeper_country}{category}{rng.randrange(1000):03d}"
    return f"{payload}{luhn_check_digit(payload)}"


def is_valid_wagon_id(value: str) -> bool:
    return bool(_WAGON.fullmatch(value)) and luhn_check_digit(value[:11]) == int(value[11])


def make_tracking_number(rng: random.Random, prefix: str, digits: int = 14) -> str:
    """A parcel tracking number: the carrier's prefix, serial digits and a Luhn check digit."""
    serial = "".join(str(rng.randrange(10)) for _ in range(digits - 1))
    return f"{prefix}{serial}{luhn_check_digit(serial)}"


def is_valid_tracking_number(value: str, prefix: str) -> bool:
    serial = value.removeprefix(prefix)
    if not value.startswith(prefix) or not serial.isdigit() or len(serial) < 2:
        return False
    return luhn_check_digit(serial[:-1]) == int(serial[-1])


def gs1_check_digit(payload: str) -> int:
    """GS1 mod 10 (weights 3 and 1 from the right), as in VICS bills of lading and SSCCs."""
    total = sum(int(c) * (3 if i % 2 == 0 else 1) for i, c in enumerate(reversed(payload)))
    return (10 - total % 10) % 10


def make_vics_bol(rng: random.Random, company_prefix: str) -> str:
    """A 17-digit VICS bill of lading number: GS1 company prefix, serial, check digit."""
    width = 16 - len(company_prefix)
    payload = f"{company_prefix}{rng.randrange(10**width):0{width}d}"
    return f"{payload}{gs1_check_digit(payload)}"


def is_valid_vics_bol(value: str) -> bool:
    return len(value) == 17 and value.isdigit() and gs1_check_digit(value[:16]) == int(value[16])


def make_pro_number(rng: random.Random, prefix: str) -> str:
    """A 10-digit LTL PRO number: the carrier's 3-digit prefix, serial, check digit mod 7."""
    payload = f"{prefix}{rng.randrange(1_000_000):06d}"
    return f"{payload}{int(payload) % 7}"


def is_valid_pro_number(value: str) -> bool:
    return len(value) == 10 and value.isdigit() and int(value[:9]) % 7 == int(value[9])


def make_ocean_bill_of_lading(rng: random.Random, scac: str) -> str:
    """A carrier's master bill of lading: its SCAC then ten digits, e.g. `HOCS2412345678`."""
    return f"{scac}{rng.randrange(10**9, 10**10)}"


def make_house_bill_of_lading(rng: random.Random, ffw_scac: str) -> str:
    return f"{ffw_scac}{rng.randrange(10**7, 10**8)}"


def make_booking_number(rng: random.Random) -> str:
    return str(rng.randrange(100_000_000, 999_999_999))


def make_purchase_order(rng: random.Random) -> str:
    """An ERP purchase order number (the `45...` range SAP systems commonly use)."""
    return f"45{rng.randrange(10**8):08d}"


def make_rail_waybill(rng: random.Random) -> str:
    return f"{rng.randrange(100_000, 999_999)}"


def make_rail_car_id(rng: random.Random, reporting_mark: str) -> str:
    """A North American rail car: reporting mark and car number, e.g. `TPRR 412233`."""
    return f"{reporting_mark} {rng.randrange(100_000, 999_999)}"


def make_train_number(rng: random.Random) -> str:
    """A European freight train number (five digits, the 4xxxx and 5xxxx ranges)."""
    return str(rng.randrange(40_000, 59_999))


def make_reference(rng: random.Random, prefix: str) -> str:
    return f"{prefix}-{rng.randrange(100_000, 999_999)}"
