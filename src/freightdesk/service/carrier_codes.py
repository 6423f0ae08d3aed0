"""What a dispatcher types for a carrier, as its code: the one rule of every carrier field.

A dispatcher knows a carrier by its name ('Blue Mesa'), the service by its SCAC ('BMLG').
A field takes either, or the completion the app offers ('Blue Mesa Logistics (BMLG)'), and
sends the code. Names are those the app knows (`carrier_names`); a SCAC it does not know is
still a SCAC (any carrier has a profile), a name it does not know is refused with words that
say so.
"""

from __future__ import annotations

import re

from freightdesk.service.carrier_names import CARRIER_NAMES, carrier_text, code_key

_SCAC = re.compile(r"[A-Za-z]{2,4}")
# The completion's form: the name, then its code in brackets.
_COMPLETION = re.compile(r".*\(\s*([A-Za-z]{2,4})\s*\)")
# Between the carriers of a list: a name may hold spaces, so only commas and semicolons.
_LIST = re.compile(r"[,;]")


def carrier_code(text: str) -> tuple[str | None, str | None]:
    """The code of the carrier `text` names, in capitals, or why it names none; (None, None)
    for nothing typed.

    In order: the completion's code in brackets; a code the app knows; a carrier's whole or
    short name; the one carrier whose name has a word starting with it ('Blue Mesa'); any
    other SCAC. Case and spaces do not matter."""
    typed = " ".join(text.split())
    if not typed:
        return None, None
    completion = _COMPLETION.fullmatch(typed)
    if completion:
        return code_key(completion.group(1)), None
    names = CARRIER_NAMES.as_dict()
    scac = _SCAC.fullmatch(typed) is not None
    if scac and code_key(typed) in names:
        return code_key(typed), None
    needle = typed.casefold()
    exact = [c for c, n in names.items() if needle in (n.casefold(), _short(c))]
    if len(exact) == 1:
        return exact[0], None
    starting = exact or [c for c, n in names.items() if _starts_a_word(needle, n.casefold())]
    if len(starting) == 1:
        return starting[0], None
    if len(starting) > 1:
        several = ", ".join(sorted(carrier_text(c) for c in starting))
        return None, f"{typed!r} names several carriers ({several}): pick one, or type its SCAC"
    if scac:
        return code_key(typed), None
    if " " in typed or len(typed) > 4:
        return None, f"No carrier the app knows is named {typed!r}; type its SCAC"
    return None, f"{typed!r} is not a SCAC (2 to 4 letters)"


def carrier_codes(text: str) -> tuple[list[str], str | None]:
    """The codes of the carriers a list names, separated by commas (each as `carrier_code`
    takes it), in order, once each; or the problems of the parts that name none.

    A part of SCACs separated by spaces ('hocs azms', as the lists took them before names)
    is those SCACs, unless one of them is no code the app knows but starts a word of a name
    it knows: 'Blu Mesa' is a name mistyped, refused, not the SCACs BLU and MESA."""
    codes: list[str] = []
    problems: list[str] = []
    known = CARRIER_NAMES.as_dict()
    for part in _LIST.split(text):
        code, problem = carrier_code(part)
        words = part.split()
        if problem and len(words) > 1 and all(_is_scac(w, known) for w in words):
            codes.extend(code_key(w) for w in words)
        elif problem:
            problems.append(problem)
        elif code:
            codes.append(code)
    return list(dict.fromkeys(codes)), "; ".join(problems) or None


def _is_scac(word: str, known: dict[str, str]) -> bool:
    if _SCAC.fullmatch(word) is None:
        return False
    needle = word.casefold()
    return code_key(word) in known or not any(
        _starts_a_word(needle, name.casefold()) for name in known.values()
    )


def _short(code: str) -> str:
    return CARRIER_NAMES.short(code).casefold()


def _starts_a_word(needle: str, name: str) -> bool:
    return name.startswith(needle) or f" {needle}" in name
