"""The postal address normalizer as a pure function, and the consistency of its data."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from freightdesk.models.addresses import (
    SUBDIVISIONS,
    AddressInput,
    InvalidAddressError,
    country_code,
    normalize_address,
    normalize_postal_code,
    subdivision_code,
    tidy_city,
)
from freightdesk.models.common import Address
from freightdesk.models.regions import (
    CA_POSTAL_LETTERS,
    CA_PROVINCES,
    POSTAL_FORMATS,
    US_STATES,
    US_ZIP_PREFIXES,
)


def normalized(**fields: object) -> dict[str, object]:
    return normalize_address(AddressInput.model_validate(fields)).wire()


def problems(**fields: object) -> dict[str, str]:
    with pytest.raises(InvalidAddressError) as caught:
        normalize_address(AddressInput.model_validate(fields))
    return {problem.source: problem.message for problem in caught.value.problems}


@pytest.mark.parametrize(
    ("given", "code"),
    [
        (None, "US"),
        ("", "US"),
        ("  ", "US"),
        ("us", "US"),
        ("USA", "US"),
        ("U.S.A.", "US"),
        ("United States of America", "US"),
        ("Canada", "CA"),
        ("CAN", "CA"),
        ("Mexico", "MX"),
        ("México", "MX"),
        ("DEU", "DE"),
        ("Germany", "DE"),
        ("Deutschland", "DE"),
        ("UK", "GB"),
        ("United Kingdom", "GB"),
        ("Great Britain", "GB"),
        ("the netherlands", "NL"),
        ("Holland", "NL"),
        ("Côte d'Ivoire", "CI"),
        ("South Korea", "KR"),
        ("Korea, Republic of", "KR"),
        ("XK", "XK"),
        ("Narnia", None),
        ("ZZ", None),
        ("QQQ", None),
    ],
)
def test_country_codes_names_and_alpha3(given: str | None, code: str | None) -> None:
    assert country_code(given) == code


@pytest.mark.parametrize(
    ("country", "given", "code"),
    [
        ("US", "tx", "TX"),
        ("US", "Texas", "TX"),
        ("US", "new  york", "NY"),
        ("US", "N.Y.", "NY"),
        ("US", "Calif.", "CA"),
        ("US", "District of Columbia", "DC"),
        ("US", "Washington D.C.", "DC"),
        ("US", "Puerto Rico", "PR"),
        ("US", "pr", "PR"),
        ("US", "AE", "AE"),
        ("CA", "Ontario", "ON"),
        ("CA", "Québec", "QC"),
        ("CA", "Quebec", "QC"),
        ("CA", "PQ", "QC"),
        ("CA", "British Columbia", "BC"),
        ("CA", "Newfoundland", "NL"),
        ("CA", "Yukon", "YT"),
        ("MX", "Nuevo León", "NLE"),
        ("MX", "nuevo leon", "NLE"),
        ("MX", "NL", "NLE"),
        ("MX", "Jalisco", "JAL"),
        ("MX", "CDMX", "CMX"),
        ("MX", "Distrito Federal", "CMX"),
        ("MX", "Estado de México", "MEX"),
        ("MX", "Veracruz de Ignacio de la Llave", "VER"),
        ("US", "Ontario", None),
        ("CA", "Texas", None),
        ("DE", "Bayern", None),
    ],
)
def test_subdivisions(country: str, given: str, code: str | None) -> None:
    assert subdivision_code(country, given) == code


@pytest.mark.parametrize(
    ("country", "given", "canonical"),
    [
        ("US", "12345", "12345"),
        ("US", "12345-6789", "12345-6789"),
        ("US", "123456789", "12345-6789"),
        ("US", " 12345 6789 ", "12345-6789"),
        ("CA", "k1a0b1", "K1A 0B1"),
        ("CA", "K1A 0B1", "K1A 0B1"),
        ("CA", "k1a-0b1", "K1A 0B1"),
        ("MX", "06600", "06600"),
        ("GB", "sw1a1aa", "SW1A 1AA"),
        ("GB", "M1 1AE", "M1 1AE"),
        ("GB", "ec1a 1bb", "EC1A 1BB"),
        ("DE", "10115", "10115"),
        ("DE", "D-10115", "10115"),
        ("FR", "75001", "75001"),
        ("NL", "1011ab", "1011 AB"),
        ("BE", "1000", "1000"),
        ("BE", "B-1000", "1000"),
        ("ES", "28013", "28013"),
        ("IT", "00184", "00184"),
        ("PL", "00950", "00-950"),
        ("PL", "00-950", "00-950"),
        ("SE", "11122", "111 22"),
        ("PT", "1100148", "1100-148"),
        ("IE", "d02x285", "D02 X285"),
        ("LU", "L-1471", "1471"),
        ("LV", "1050", "LV-1050"),
        ("LT", "LT-01100", "LT-01100"),
        ("CZ", "11000", "110 00"),
        ("JP", "1000001", "100-0001"),
        ("BR", "01310100", "01310-100"),
        # A country whose format we do not know: as given, trimmed.
        ("AR", "  C1002AAB ", "C1002AAB"),
        ("ZW", "anything  at all", "anything at all"),
    ],
)
def test_postal_codes_per_country(country: str, given: str, canonical: str) -> None:
    assert normalize_postal_code(country, given) == canonical


@pytest.mark.parametrize(
    ("country", "given"),
    [
        ("US", "1234"),
        ("US", "123456"),
        ("US", "12345-678"),
        ("US", "ABCDE"),
        ("CA", "K1A0B"),
        ("CA", "D1A 0B1"),  # D is never a first letter
        ("CA", "12345"),
        ("MX", "1234"),
        ("GB", "12345"),
        ("DE", "1011"),
        ("FR", "7500"),
        ("NL", "0123 AB"),
        ("NL", "1234 SS"),
        ("BE", "0999"),
        ("ES", "53001"),
        ("IT", "1234"),
        ("PL", "1234"),
        ("AT", "0100"),
        ("CH", "80011"),
    ],
)
def test_malformed_postal_codes(country: str, given: str) -> None:
    assert normalize_postal_code(country, given) is None


def test_a_full_us_address_is_normalized() -> None:
    assert normalized(
        addressLines=["  123   Main St ", "", "   ", "Suite 4"],
        city="SAN ANTONIO",
        state="texas",
        postalCode="782051234",
        country="usa",
    ) == {
        "addressLines": ["123 Main St", "Suite 4"],
        "city": "San Antonio",
        "state": "TX",
        "postalCode": "78205-1234",
        "country": "US",
    }


def test_canadian_and_mexican_addresses() -> None:
    assert normalized(city="montréal", state="Québec", postalCode="h2y1c6", country="Canada") == {
        "addressLines": [],
        "city": "Montréal",
        "state": "QC",
        "postalCode": "H2Y 1C6",
        "country": "CA",
    }
    assert (
        normalized(city="Monterrey", state="Nuevo León", postalCode="64000", country="MEX")["state"]
        == "NLE"
    )


def test_other_countries_keep_their_state_as_written() -> None:
    result = normalized(city="München", state=" Bayern ", postalCode="80331", country="DE")
    assert result["state"] == "Bayern" and result["postalCode"] == "80331"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("NEW YORK", "New York"),
        ("new york", "New York"),
        ("WINSTON-SALEM", "Winston-Salem"),
        ("o'fallon", "O'Fallon"),
        ("ST. LOUIS", "St. Louis"),
        ("  des   moines ", "Des Moines"),
        # Mixed case is the writer's choice and is kept.
        ("McAllen", "McAllen"),
        ("DeKalb", "DeKalb"),
    ],
)
def test_city_is_title_cased_only_when_written_in_one_case(given: str, expected: str) -> None:
    assert tidy_city(given) == expected


def test_every_problem_is_named() -> None:
    assert set(problems(addressLines=["1", "2", "3", "4"], state="Atlantis", postalCode="1")) == {
        "addressLines",
        "state",
        "postalCode",
    }


def test_blank_lines_do_not_count_towards_the_limit() -> None:
    assert normalized(addressLines=["1 Main", " ", "", "Unit 2", "Back door"])["addressLines"] == [
        "1 Main",
        "Unit 2",
        "Back door",
    ]


def test_unknown_country_is_reported_alone() -> None:
    assert problems(country="Narnia", state="XX", postalCode="?") == {
        "country": "'Narnia' is not a known country; use the ISO 3166 code such as US, CA, MX or DE"
    }


def test_unknown_us_state_canadian_province_and_mexican_state() -> None:
    assert "state" in problems(state="XX")
    assert "state" in problems(state="Texas", country="CA")
    assert "state" in problems(state="Bavaria", country="MX")


def test_zip_must_fit_the_state() -> None:
    message = problems(state="NY", postalCode="90210")["postalCode"]
    assert "90210" in message and "NY" in message
    assert normalized(state="CA", postalCode="90210")["postalCode"] == "90210"
    # The known exceptions to the first digit rule.
    assert normalized(state="NY", postalCode="00501")["state"] == "NY"
    assert normalized(state="NY", postalCode="06390")["state"] == "NY"
    assert normalized(state="TX", postalCode="88510")["state"] == "TX"
    assert normalized(state="DC", postalCode="56901")["state"] == "DC"
    assert normalized(state="PR", postalCode="00901")["state"] == "PR"
    assert "postalCode" in problems(state="PR", postalCode="10001")


def test_canadian_postal_code_must_fit_the_province() -> None:
    assert "postalCode" in problems(state="BC", postalCode="K1A 0B1", country="CA")
    assert normalized(state="ON", postalCode="K1A 0B1", country="CA")["state"] == "ON"
    assert normalized(state="NU", postalCode="X0A 0H0", country="CA")["state"] == "NU"


def test_a_bare_address_is_just_its_country() -> None:
    assert normalized() == {"addressLines": [], "country": "US"}
    assert normalized(country="fr", postalCode="75001") == {
        "addressLines": [],
        "postalCode": "75001",
        "country": "FR",
    }


def test_the_service_shape_is_accepted_too() -> None:
    address = Address(address_lines=["1 Rue de Rivoli"], postal_code="75001", country="FRA")
    assert normalize_address(address).country == "FR"


def test_data_is_consistent() -> None:
    # Every state and province has its postal prefixes, and every format's example is valid.
    assert set(US_ZIP_PREFIXES) == set(US_STATES)
    assert set(CA_POSTAL_LETTERS) == set(CA_PROVINCES)
    for country, rule in POSTAL_FORMATS.items():
        for example in rule.example.split(" or "):
            assert normalize_postal_code(country, example) == example, country
    for country, names in SUBDIVISIONS.items():
        for code, name in names.items():
            assert subdivision_code(country, name) == code
            assert subdivision_code(country, code.lower()) == code


_valid_us = st.builds(
    dict,
    addressLines=st.lists(st.text(max_size=30), max_size=3),
    city=st.one_of(st.none(), st.text(max_size=30)),
    state=st.sampled_from(sorted(US_STATES)),
    postalCode=st.from_regex(r"[0-9]{5}(-[0-9]{4})?", fullmatch=True),
)


# No deadline: the machine is shared, and a slow example is not a wrong one.
@settings(deadline=None)
@given(_valid_us)
def test_normalizing_twice_changes_nothing(fields: dict[str, object]) -> None:
    try:
        once = normalize_address(AddressInput.model_validate(fields))
    except InvalidAddressError:
        return  # e.g. a ZIP outside the state: the property is about valid addresses
    assert normalize_address(once) == once
