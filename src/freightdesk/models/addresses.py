"""Postal addresses: the lenient input shape and the normalizer.

:func:`normalize_address` is a pure function shared by the local service (the address
validation endpoints, stop locations) and the app's forms, which is why it lives beside the
models rather than in the server: the app may not import the server.

"Valid" here means well-formed: a known country, a known state or province where we know the
country's full list (US, Canada, Mexico), a postal code in the country's format that fits the
state where the mapping is public (US ZIP prefixes, Canadian postal letters), at most three
address lines. Nothing checks that the street exists; there is no geocoder.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated

from pydantic import Field, StringConstraints

from freightdesk.models.base import StrictWireModel
from freightdesk.models.common import Address
from freightdesk.models.regions import (
    CA_POSTAL_LETTERS,
    CA_PROVINCE_ALIASES,
    CA_PROVINCES,
    COUNTRIES,
    COUNTRY_ALIASES,
    MX_STATE_ALIASES,
    MX_STATES,
    POSTAL_FORMATS,
    US_STATE_ALIASES,
    US_STATES,
    US_ZIP_PREFIXES,
)

MAX_ADDRESS_LINES = 3
DEFAULT_COUNTRY = "US"

_Line = Annotated[str, StringConstraints(max_length=200)]


class AddressInput(StrictWireModel):
    """An address as a caller sends it, before normalization.

    Looser than :class:`~freightdesk.models.common.Address` on purpose: blank lines are
    dropped before the three-line limit is checked, and an absent or null country means US.
    The caps only stop absurd input; the normalizer gives the real messages.
    """

    address_lines: list[_Line] = Field(default_factory=list, max_length=20)
    city: str | None = Field(default=None, max_length=200)
    state: str | None = Field(default=None, max_length=100)
    postal_code: str | None = Field(default=None, max_length=40)
    country: str | None = Field(default=None, max_length=100)


@dataclass(frozen=True)
class AddressProblem:
    """Why an address cannot be valid; `source` is the wire name of the field."""

    source: str
    message: str


class InvalidAddressError(ValueError):
    """The address cannot be valid; `problems` names every offending field."""

    def __init__(self, problems: Iterable[AddressProblem]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(f"{p.source}: {p.message}" for p in self.problems))


def region_key(text: str) -> str:
    """The comparison key of a region name or code: no accents, case, spaces or punctuation.

    `"Québec"`, `"QUEBEC"` and `"que-bec"` share a key; so do `"N. Dak."` and `"NDAK"`.
    """
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if c.isascii() and c.isalnum()).upper()


def _lookup(*tables: Mapping[str, str]) -> dict[str, str]:
    """Key -> code; a key that would name two different codes is a bug in the data."""
    found: dict[str, str] = {}
    for table in tables:
        for name, code in table.items():
            key = region_key(name)
            if found.setdefault(key, code) != code:
                raise ValueError(f"{name!r} names both {found[key]} and {code}")
    return found


def _names_to_codes(names: Mapping[str, str]) -> dict[str, str]:
    return {name: code for code, name in names.items()} | {code: code for code in names}


COUNTRY_NAMES: dict[str, str] = {alpha2: name for alpha2, _, name, _ in COUNTRIES}

_COUNTRY_KEYS = _lookup(
    {alpha2: alpha2 for alpha2, _, _, _ in COUNTRIES},
    {alpha3: alpha2 for alpha2, alpha3, _, _ in COUNTRIES},
    {name: alpha2 for alpha2, _, name, _ in COUNTRIES},
    {other: alpha2 for alpha2, _, _, others in COUNTRIES for other in others},
    COUNTRY_ALIASES,
)

# Countries whose complete list of subdivisions we know: an unknown one is an error there.
SUBDIVISIONS: dict[str, dict[str, str]] = {
    "US": US_STATES,
    "CA": CA_PROVINCES,
    "MX": MX_STATES,
}
_SUBDIVISION_KEYS: dict[str, dict[str, str]] = {
    "US": _lookup(_names_to_codes(US_STATES), US_STATE_ALIASES),
    "CA": _lookup(_names_to_codes(CA_PROVINCES), CA_PROVINCE_ALIASES),
    "MX": _lookup(_names_to_codes(MX_STATES), MX_STATE_ALIASES),
}
_SUBDIVISION_WORDS = {
    "US": ("a US state, territory or military state", "the USPS abbreviation such as TX"),
    "CA": ("a Canadian province or territory", "the abbreviation such as ON"),
    "MX": ("a Mexican state", "the ISO 3166-2 code such as NLE or a name such as Jalisco"),
}


def country_code(text: str | None) -> str | None:
    """The ISO 3166-1 alpha-2 code for a code, alpha-3 code or name; blank means US.

    None when the country is unknown.
    """
    if text is None or not text.strip():
        return DEFAULT_COUNTRY
    return _COUNTRY_KEYS.get(region_key(text))


def subdivision_code(country: str, text: str) -> str | None:
    """The abbreviation of a state or province of a country whose list we know, else None."""
    keys = _SUBDIVISION_KEYS.get(country)
    return None if keys is None else keys.get(region_key(text))


def normalize_postal_code(country: str, text: str) -> str | None:
    """The canonical spelling of a postal code, or None if it is not in the country's format.

    A country whose format is not known gets the code back trimmed, spaces collapsed.
    """
    tidy = " ".join(text.split())
    rule = POSTAL_FORMATS.get(country)
    if rule is None:
        return tidy
    compact = tidy.upper().replace(" ", "").replace("-", "")
    candidates = [compact]
    candidates += [compact[len(p) :] for p in rule.prefixes if compact.startswith(p)]
    for candidate in candidates:
        match = rule.pattern.fullmatch(candidate)
        if match is not None:
            return rule.render(tuple(group or "" for group in match.groups()))
    return None


def tidy_city(text: str) -> str:
    """Trimmed, spaces collapsed; title case only when it was written in one case."""
    city = " ".join(text.split())
    if city.isupper() or city.islower():
        return " ".join(_title_word(word) for word in city.split(" "))
    return city


def _title_word(word: str) -> str:
    # "WINSTON-SALEM" -> "Winston-Salem", "O'FALLON" -> "O'Fallon", "ST." -> "St."
    parts = word.lower().split("-")
    titled = []
    for part in parts:
        head, apostrophe, tail = part.partition("'")
        if apostrophe and len(head) == 1 and tail:
            titled.append(f"{head.upper()}'{tail.capitalize()}")
        else:
            titled.append(part.capitalize())
    return "-".join(titled)


def normalize_address(address: AddressInput | Address) -> Address:
    """The address in canonical form, or :class:`InvalidAddressError` naming every problem.

    Country: alpha-2 (from a code, alpha-3 code or name; blank means US). State: the
    abbreviation in the US, Canada and Mexico (unknown ones refused), otherwise trimmed.
    Postal code: the country's canonical format where we know it (malformed ones refused),
    otherwise trimmed; in the US and Canada it must also fit the state. Lines: trimmed, blank
    ones dropped, at most three. City: trimmed, title-cased only if written in one case.
    """
    problems: list[AddressProblem] = []

    lines = [" ".join(line.split()) for line in address.address_lines]
    lines = [line for line in lines if line]
    if len(lines) > MAX_ADDRESS_LINES:
        problems.append(
            AddressProblem(
                "addressLines",
                f"at most {MAX_ADDRESS_LINES} address lines are allowed, not {len(lines)}",
            )
        )

    city = tidy_city(address.city) if address.city else ""

    country = country_code(address.country)
    if country is None:
        problems.append(
            AddressProblem(
                "country",
                f"{address.country!r} is not a known country; use the ISO 3166 code "
                "such as US, CA, MX or DE",
            )
        )
        raise InvalidAddressError(problems)

    state = _state(country, address.state, problems)
    postal = _postal_code(country, state, address.postal_code, problems)

    if problems:
        raise InvalidAddressError(problems)
    return Address(
        address_lines=lines,
        city=city or None,
        state=state or None,
        postal_code=postal or None,
        country=country,
    )


def address_problems(
    address: AddressInput | Address, prefix: str = ""
) -> tuple[Address | None, list[tuple[str, str]]]:
    """The normalized address, or None and the (source, message) pairs of its problems.

    For callers that report the address's problems together with problems of other fields.
    """
    try:
        return normalize_address(address), []
    except InvalidAddressError as exc:
        return None, [(f"{prefix}{p.source}", p.message) for p in exc.problems]


def _state(country: str, given: str | None, problems: list[AddressProblem]) -> str:
    text = " ".join((given or "").split())
    if not text or country not in SUBDIVISIONS:
        return text
    code = subdivision_code(country, text)
    if code is None:
        what, hint = _SUBDIVISION_WORDS[country]
        problems.append(AddressProblem("state", f"{text!r} is not {what}; use {hint}"))
        return ""
    return code


def _postal_code(
    country: str, state: str, given: str | None, problems: list[AddressProblem]
) -> str:
    text = " ".join((given or "").split())
    if not text:
        return ""
    postal = normalize_postal_code(country, text)
    if postal is None:
        rule = POSTAL_FORMATS[country]
        problems.append(
            AddressProblem(
                "postalCode",
                f"{text!r} is not a postal code of {COUNTRY_NAMES.get(country, country)}; "
                f"expected {rule.description}, e.g. {rule.example}",
            )
        )
        return ""
    mismatch = _region_mismatch(country, state, postal)
    if mismatch is not None:
        problems.append(AddressProblem("postalCode", mismatch))
    return postal


def _region_mismatch(country: str, state: str, postal: str) -> str | None:
    """Why a well-formed postal code cannot be in the state, or None if it can."""
    if country == "US" and state in US_ZIP_PREFIXES:
        prefixes = US_ZIP_PREFIXES[state]
        if not postal.startswith(prefixes):
            starts = _either(prefixes)
            return f"ZIP code {postal} is not in {state}; ZIP codes there start with {starts}"
    if country == "CA" and state in CA_POSTAL_LETTERS:
        letters = CA_POSTAL_LETTERS[state]
        if postal[0] not in letters:
            starts = _either(tuple(letters))
            return f"postal code {postal} is not in {state}; postal codes there start with {starts}"
    return None


def _either(options: tuple[str, ...]) -> str:
    """("1", "005", "063") -> "1, 005 or 063"."""
    if len(options) == 1:
        return options[0]
    return f"{', '.join(options[:-1])} or {options[-1]}"
