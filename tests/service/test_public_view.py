"""The public link's token: taken from the link's last segment, so the preview asks this
service only, and anything that is not a token is refused before anything is sent."""

from __future__ import annotations

import pytest

from freightdesk.service.public_view import identifier_words, share_token


@pytest.mark.parametrize(
    ("link", "token"),
    [
        ("http://127.0.0.1:8123/api/v4/public/shipments/AbC-_09xyz", "AbC-_09xyz"),
        ("https://freight.example.com/api/v4/public/shipments/AbC-_09xyz/", "AbC-_09xyz"),
        ("https://elsewhere.example/x/AbC?utm=1", "AbC"),
        (" AbC-_09xyz ", "AbC-_09xyz"),
    ],
)
def test_the_token_is_the_links_last_segment(link: str, token: str) -> None:
    assert share_token(link) == token


@pytest.mark.parametrize(
    "link",
    ["", "https://freight.example.com/", "https://x/api/v4/public/shipments/a%2Fb", "x" * 65],
)
def test_what_is_not_a_token_is_refused(link: str) -> None:
    assert share_token(link) is None


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("BILL_OF_LADING", "Bill of lading"),
        ("CARRIER_SCAC", "Carrier SCAC"),
        ("FFW_SCAC", "FFW SCAC"),
        ("PRO_NUMBER", "PRO number"),
        ("CONTAINER_ID", "Container ID"),
        ("SKU", "SKU"),
    ],
)
def test_an_identifier_type_in_words_keeps_its_letters(code: str, words: str) -> None:
    """The preview names each identifier as a person reads it (was "Carrier scac")."""
    assert identifier_words(code) == words
