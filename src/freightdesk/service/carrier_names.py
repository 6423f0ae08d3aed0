"""What the app shows a carrier's code by: the one place that turns a SCAC into words.

Shipments, bookings and account codes name a carrier by its code ('PWTR'); a dispatcher knows
it by its name. The directory holds the names the connected service gives: the carriers it
knows (the local service's names list, an extension), else its carrier profiles, and the
names its other answers carry (capacity results, sailing schedules' carriers). It is kept in
the profile's cache, so the last known names show at once at the next start and offline.

An unknown code is shown as the code. The directory is the process's, as the clock's zone is
(`clock.set_user_zone`): the lists' column functions read it without a session at hand, the
Shipments list's index in a worker thread too (a name map is swapped whole, never changed in
place).
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from freightdesk.models.carrier_words import derived_carrier_name

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient
    from freightdesk.service.cache import Cache

log = logging.getLogger(__name__)

# The cache's kind for the names (key the code, value the name in UTF-8).
NAMES = "carrier_names"

# Words that say what a carrier does, not which one it is: a short name leaves them off its
# end ('Prairie Wind Transport' -> 'Prairie Wind'), while a word is left.
_GENERIC = frozenset((
    "air", "airlines", "autotransportes", "cargo", "carriers", "co", "consolidated",
    "container", "corp", "corporation", "courier", "express", "forwarding", "freight",
    "freightways", "gmbh", "haulage", "haulers", "inc", "line", "lines", "llc", "logistics",
    "logistik", "ltd", "ltl", "maritime", "ocean", "rail", "railroad", "railway", "shipping",
    "spedition", "transport", "transportation", "trucking",
))  # fmt: skip


def short_name(name: str) -> str:
    """`name` without the generic words at its end ('Old Dominion Freight Line' -> 'Old
    Dominion'); a name of only such words, or of one word, whole."""
    words = name.split()
    while len(words) > 1 and words[-1].strip(".,").casefold() in _GENERIC:
        words.pop()
    while len(words) > 1 and words[-1] in ("&", "-", "and"):
        words.pop()
    return " ".join(words)


def distinct_short_names(names: Mapping[str, str]) -> dict[str, str]:
    """Each code's short name, told apart from the others': two carriers of one short name
    ('Keystone LTL', 'Keystone Freight Lines') keep their whole names; a short name that
    begins another carrier's name ('Prairie' of 'Prairie Wind' beside Prairie Line Freight)
    keeps its next words until it does not ('Prairie Line'), else it would read as that one."""
    shorts = {code: short_name(name) for code, name in names.items()}
    taken = Counter(s.casefold() for s in shorts.values())
    # Which carriers' short or whole names begin with these words (casefolded).
    begun: dict[tuple[str, ...], set[str]] = {}
    beginnings = (
        (code, form[:length])
        for code, name in names.items()
        for form in {_words(name), _words(shorts[code])}
        for length in range(1, len(form) + 1)
    )
    for code, beginning in beginnings:
        begun.setdefault(beginning, set()).add(code)
    distinct: dict[str, str] = {}
    for code, short in shorts.items():
        if taken[short.casefold()] > 1:
            distinct[code] = names[code]
        else:
            others = begun[_words(short)] - {code}
            distinct[code] = _not_begun(names[code], len(short.split()), others, begun)
    return distinct


def _words(name: str) -> tuple[str, ...]:
    return tuple(name.casefold().split())


def _not_begun(
    name: str, length: int, others: set[str], begun: dict[tuple[str, ...], set[str]]
) -> str:
    """The first `length` words of `name` and as many more as it takes for no other carrier's
    name to begin with them (the whole name at most); a joining word ('&') is not an end."""
    words = name.split()
    key = _words(name)
    while length < len(words) and (others or words[length - 1] in ("&", "-", "and")):
        length += 1
        others = others & begun.get(key[:length], set())
    return " ".join(words[:length])


class CarrierNames:
    """Carrier names by code, told to listeners as they change."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}
        self._short: dict[str, str] = {}
        self._folded: dict[str, str] = {}  # casefolded names, for a search
        self._listeners: list[Callable[[frozenset[str]], None]] = []
        # Told the first time a list's row shows a code without a name (`when_unnamed`).
        self._unnamed: Callable[[], None] | None = None
        self._unnamed_seen: set[str] = set()
        # Counts the changes: what was made from the names before may be out of date.
        self.version = 0

    # --- the words shown -------------------------------------------------------------------

    def name(self, code: str | None) -> str | None:
        """The carrier's name, None when the service named none."""
        return self._names.get(code_key(code)) if code else None

    def text(self, code: str | None) -> str:
        """'Prairie Wind Transport (PWTR)'; an unknown code as itself; '' for none."""
        if not code:
            return ""
        name = self._names.get(code_key(code))
        return f"{name} ({code.strip()})" if name else code.strip()

    def short(self, code: str | None) -> str:
        """For a narrow column: 'Prairie Wind', the whole name where two carriers' short names
        would be the same; an unknown code as itself; '' for none."""
        if not code:
            return ""
        short = self._short.get(code_key(code))
        if short is None:
            self._shown_unnamed(code_key(code))
            return code.strip()
        return short

    def when_unnamed(self, told: Callable[[], None] | None) -> None:
        """`told` (from any thread: the Shipments list indexes in a worker) the first time a
        list's row shows each code without a name, as the service may know it by now (a
        carrier the demo or a colleague added after the names were asked); None to stop.
        Each code once, so that a code the service does not name cannot ask again and again."""
        self._unnamed_seen = set()
        self._unnamed = told

    def _shown_unnamed(self, code: str) -> None:
        told = self._unnamed
        if told is None or code in self._unnamed_seen:
            return
        self._unnamed_seen.add(code)
        try:
            told()
        except Exception:
            log.exception("the unnamed carrier listener failed")

    def matching(self, needle: str) -> frozenset[str]:
        """The codes of the carriers whose name holds `needle` (casefolded): a pass over the
        few names known, not over the shipments."""
        return frozenset(code for code, name in self._folded.items() if needle in name)

    # --- learning them ---------------------------------------------------------------------

    def replace(self, names: Mapping[str, str]) -> None:
        """The whole directory anew (the service's list, or the cache's at a start)."""
        self._set({code_key(c): n.strip() for c, n in names.items() if c.strip() and n.strip()})

    def learn(self, names: Iterable[tuple[str, str | None]]) -> None:
        """Names an answer carried, beside the ones known (an empty name teaches nothing)."""
        found = {code_key(c): n.strip() for c, n in names if c and c.strip() and n and n.strip()}
        if any(self._names.get(code) != name for code, name in found.items()):
            self._set({**self._names, **found})

    def _set(self, names: dict[str, str]) -> None:
        old = self._names
        changed = frozenset(c for c in old.keys() | names.keys() if old.get(c) != names.get(c))
        if not changed:
            return
        self._short = distinct_short_names(names)
        self._names = names
        self._folded = {code: name.casefold() for code, name in names.items()}
        self.version += 1
        for listener in list(self._listeners):
            try:
                listener(changed)
            except Exception:
                log.exception("a carrier names listener failed")

    def listen(self, listener: Callable[[frozenset[str]], None]) -> Callable[[], None]:
        """Told the codes whose name changed; returns the unsubscribe."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def as_dict(self) -> dict[str, str]:
        return dict(self._names)


def code_key(code: str) -> str:
    """A carrier's code as the names are kept by: 'pwtr ' is 'PWTR'."""
    return code.strip().upper()


CARRIER_NAMES = CarrierNames()


def carrier_text(code: str | None) -> str:
    """The carrier of `code` in words, as the app shows it: 'Prairie Wind Transport (PWTR)'."""
    return CARRIER_NAMES.text(code)


def load_cached(cache: Cache) -> None:
    """The names kept at the last run with this cache's profile."""
    names: dict[str, str] = {}
    for body in cache.load(NAMES):
        try:
            code, name = json.loads(body)
        except (ValueError, TypeError):
            continue  # a damaged entry: that carrier shows by its code until the next fetch
        names[str(code)] = str(name)
    CARRIER_NAMES.replace(names)


def keep(cache: Cache) -> None:
    """Keep the names known now in the profile's cache."""
    names = CARRIER_NAMES.as_dict()
    cache.replace_kind(NAMES, [(c, json.dumps([c, n]).encode()) for c, n in names.items()])


async def refresh(client: ApiClient, cache: Cache | None) -> None:
    """The directory as the service gives it now, kept in `cache`; where the service gives
    no names, the ones known stay."""
    names = await fetch(client)
    if names is None:
        return
    CARRIER_NAMES.replace(names)
    if cache is not None:
        keep(cache)


async def fetch(client: ApiClient) -> dict[str, str] | None:
    """The names the service gives: its names list where it has one (the local service),
    else its carrier profiles' names; None where it offers neither."""
    if await client.carriers.has_names():
        return {c.carrier_code: c.carrier_name for c in await client.carriers.names()}
    if await client.carriers.available():
        profiles = await client.carriers.list()
        return {p.scac: p.name for p in profiles if p.name != derived_carrier_name(p.scac)}
    return None
