"""The words a carrier's code is shown by (service/carrier_names.py): its name and code, a
short name for a narrow column, the code where no name is known."""

from __future__ import annotations

from freightdesk.service.carrier_names import CarrierNames, short_name


def test_a_short_name_leaves_off_what_a_carrier_does() -> None:
    assert short_name("Old Dominion Freight Line") == "Old Dominion"
    assert short_name("Prairie Wind Transport") == "Prairie Wind"
    assert short_name("Keel & Compass Logistics") == "Keel & Compass"
    assert short_name("Atlantic & Gulf Railway") == "Atlantic & Gulf"
    assert short_name("SwiftParcel") == "SwiftParcel"
    assert short_name("Express Freight") == "Express"  # a word is left
    assert short_name("Transportes Meseta") == "Transportes Meseta"


def test_codes_in_words() -> None:
    names = CarrierNames()
    told: list[frozenset[str]] = []
    unlisten = names.listen(told.append)
    names.replace({"pwtr ": "Prairie Wind Transport", "KYFL": "Keystone Freight Lines"})
    names.learn([("KSTL", "Keystone LTL"), ("ZZZZ", None), ("YYYY", " ")])
    assert told == [frozenset({"PWTR", "KYFL"}), frozenset({"KSTL"})]
    assert names.text("PWTR") == "Prairie Wind Transport (PWTR)"
    assert names.text("pwtr") == "Prairie Wind Transport (pwtr)"
    assert names.short("PWTR") == "Prairie Wind"
    # Two of one short name ('Keystone') keep their whole names.
    assert names.short("KYFL") == "Keystone Freight Lines"
    assert names.short("KSTL") == "Keystone LTL"
    # A code nobody named is the code.
    assert names.text("ZZZZ") == names.short("ZZZZ") == "ZZZZ"
    assert names.text(None) == names.short("") == ""
    assert names.matching("keystone") == frozenset({"KYFL", "KSTL"})
    assert names.matching("wind t") == frozenset({"PWTR"})
    assert names.matching("zzzz") == frozenset()  # a code is no name
    names.learn([("PWTR", "Prairie Wind Transport")])  # nothing new: nobody told
    assert len(told) == 2
    unlisten()
    names.replace({})
    assert len(told) == 2 and names.text("PWTR") == "PWTR"


def test_a_short_name_does_not_begin_another_carriers_name() -> None:
    names = CarrierNames()
    names.replace({
        "PRLF": "Prairie Line Freight",
        "PWTR": "Prairie Wind Transport",
        "KCLG": "Keel & Compass Logistics",
        "KLEX": "Keel Express",
        "BMSA": "Blue Mesa Trucking",
    })  # fmt: skip
    # 'Prairie' would read as Prairie Wind: it keeps its next word.
    assert names.short("PRLF") == "Prairie Line"
    assert names.short("PWTR") == "Prairie Wind"
    # 'Keel' begins 'Keel & Compass': the whole 'Keel Express' (the generic word kept).
    assert names.short("KLEX") == "Keel Express"
    assert names.short("KCLG") == "Keel & Compass"
    assert names.short("BMSA") == "Blue Mesa"
    # A whole name that begins another's stays whole; the other keeps more than it.
    names.replace({"PRRE": "Prairie", "PWTR": "Prairie Wind Transport"})
    assert names.short("PRRE") == "Prairie"
    assert names.short("PWTR") == "Prairie Wind"
