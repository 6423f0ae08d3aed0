"""Errors explained in words a dispatcher understands (with the reference support needs).

The service's own words are for integrators: they name wire fields (`state or postalCode ...`,
`apiConfiguration.enableUnitConversion`), right in an Error body or a quote's alert, not on a
dispatcher's screen. Every rewording of them into the app's words is here, in one table
(`plain_words`), whatever shows them: a form beside its fields, a quote's "No quote: why".
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable

from freightdesk.api.errors import (
    ApiError,
    AuthenticationFailed,
    BadRequest,
    Conflict,
    ConnectionFailed,
    ConnectionLost,
    NotFound,
    PayloadTooLarge,
    PermissionDenied,
    ProtocolError,
    RateLimited,
    ServerError,
    TimedOut,
)
from freightdesk.models.code_words import code_text, unit_name
from freightdesk.models.code_words import words as code_words
from freightdesk.service.local_service import LocalService, LocalServiceError, ServiceState

# The Local sandbox's services of this process (the session's, one at a time): a request
# that cannot reach one's address is its trouble (restarting, stopped), not the network. Here, not
# an error raised by the session's client: a failure reaches `explain` straight from the
# service layer's call, never through the session, and the client (api layer) knows nothing
# of the supervisor; words about now are also right when said (a form's, the status bar's).
_local_services: weakref.WeakSet[LocalService] = weakref.WeakSet()
# Those of them whose last launch failed since they last ran: the supervisor keeps trying,
# but "try again in a moment" is no longer true.
_not_restarted: weakref.WeakSet[LocalService] = weakref.WeakSet()
RESTARTING = "The local service is restarting; try again in a moment."
NOT_RESTARTED = (
    "The local service could not be restarted; FreightDesk keeps trying. Why: Help > Open "
    "log file. Quitting and starting FreightDesk again may help."
)
# A running one not reached: it has just stopped (its supervisor not told yet) or hangs.
NOT_ANSWERING = (
    "The local service is not answering; FreightDesk restarts it if it stopped. Try again in "
    "a moment."
)
UNREACHABLE = (
    "The freight service cannot be reached. Check the network or the connection's address."
)
# Said by a form sent before the session has a connection (the forms' own words).
NOT_CONNECTED = "Not connected to the service; your input is kept."
# Words that say only that the service could not be reached: see `passing`.
_PASSING = (RESTARTING, NOT_RESTARTED, NOT_ANSWERING, UNREACHABLE, NOT_CONNECTED)


def follow_local_service(service: LocalService) -> None:
    """Let `explain` say what `service` is doing when a request cannot reach it."""
    _local_services.add(service)
    service.listen(lambda state, _message: _heard(service, state))


def _heard(service: LocalService, state: ServiceState) -> None:
    if state is ServiceState.FAILED:
        _not_restarted.add(service)
    elif state in (ServiceState.RUNNING, ServiceState.STOPPED):
        _not_restarted.discard(service)


def _local_words(failure: ConnectionFailed) -> str | None:
    """What `failure` to reach a service means when it was the Local sandbox's (its address,
    or any address when the failure does not say): None otherwise, a service elsewhere or the
    network. One rule for every screen: a failed restart wins over a restart under way, since
    the supervisor's next try follows a failed one and "in a moment" would not be true; one
    said to run has just stopped, unknown to its supervisor for a moment, or hangs."""
    address = failure.address
    live = [
        s
        for s in _local_services
        if s.state is not ServiceState.STOPPED and address in (None, s.url)
    ]
    if any(s in _not_restarted or s.state is ServiceState.FAILED for s in live):
        return NOT_RESTARTED
    restarting = (ServiceState.RESTARTING, ServiceState.STARTING)
    if any(s.state in restarting for s in live):
        return RESTARTING
    return NOT_ANSWERING if live else None


def passing(words: str | None) -> bool:
    """Whether `words` (`explain`'s, or a form's "not connected"; maybe said of what was
    asked for, `XPOL: ...`) say only that the service could not be reached: nothing was done,
    and once it answers again they are stale. A timeout or a connection cut off says more:
    the service may have acted."""
    if words is None:
        return False
    return any(words == said or words.endswith(": " + said) for said in _PASSING)


def explain(exc: BaseException) -> str:
    """One or two sentences for a message box or a status bar."""
    if isinstance(exc, TimedOut):
        within = f" within {exc.seconds:g} s" if exc.seconds else " in time"
        return f"The freight service did not answer{within}."
    if isinstance(exc, ConnectionLost):
        return "The connection to the freight service broke off before its answer came."
    if isinstance(exc, ConnectionFailed):
        return _local_words(exc) or UNREACHABLE
    if isinstance(exc, LocalServiceError):
        return f"The local sandbox could not start: {exc}"
    if isinstance(exc, ProtocolError):
        return "The freight service sent an answer FreightDesk does not understand."
    if isinstance(exc, ApiError):
        text = _api_text(exc)
        if exc.support_reference_id:
            text += f" (support reference {exc.support_reference_id})"
        return text
    return str(exc) or type(exc).__name__


def refusal(exc: BaseException) -> tuple[dict[str, str], str | None]:
    """An error as a form shows it: the problems the service names by field (each beside its
    field), else, with none named, the error in words under the form."""
    fields = plain(exc.field_errors()) if isinstance(exc, ApiError) else {}
    return fields, None if fields else explain(exc)


def _api_text(exc: ApiError) -> str:
    if isinstance(exc, AuthenticationFailed):
        return "The service did not accept the connection's client id or secret."
    if isinstance(exc, PermissionDenied):
        return f"Not allowed: {exc.error_message}"
    if isinstance(exc, NotFound):
        return "It no longer exists, or your account cannot see it."
    if isinstance(exc, Conflict):
        return exc.error_message
    if isinstance(exc, PayloadTooLarge):
        return "The file is larger than the service accepts."
    if isinstance(exc, RateLimited):
        wait = exc.retry_after
        asked = f" and asked to wait {max(1, round(wait))} s" if wait else ""
        return f"The freight service is busy (too many requests){asked}."
    if isinstance(exc, BadRequest):
        # Its fields' problems in plain words where it names them (a row of the uploads,
        # a status bar: no field beside them to say them at).
        said = dict.fromkeys(plain(exc.field_errors()).values())
        return f"The service refused the data: {'; '.join(said) or exc.error_message}"
    if isinstance(exc, ServerError):
        return "The freight service had a problem handling this."
    return exc.error_message


# A booking's state once the carrier answered (or it ran out), as a sentence goes on.
_BOOKING_STATES = {
    "BOOKED": "is booked",
    "REJECTED": "was rejected",
    "CANCELLED": "was cancelled",
    "EXPIRED": "has expired",
}


# How the words of a rate request booked already end (`booked_already`): a form says them
# under the whole form, not beside the rate identifiers the service names.
BOOK_ANOTHER = "cancel that booking in Bookings first to book another quote"


def booked_already(state: str | None) -> str:
    """ "This request is booked already: ...", or has a booking the carrier has not answered
    ("(under review)")."""
    if state == "BOOKED":
        said = "is booked already"
    else:
        said = "has a booking already" + (f" ({code_text(state).lower()})" if state else "")
    return f"This request {said}: {BOOK_ANOTHER}"


# (field path ending, message pattern, words): the first match wins. Paths are matched on
# their end so a rule holds for every address, stop or row; the pattern on the whole message.
# Each rule is pinned to words the local service really says (tests/service/
# test_messages_pins.py): a rule the service no longer triggers goes.
_PLAIN: list[tuple[str, re.Pattern[str], Callable[[re.Match[str]], str]]] = [
    (
        "state",
        re.compile(r"^state or postalCode is required for a street address.*"),
        lambda _m: "Enter a state or a postal code (or place the stop by coordinates)",
    ),
    (
        "code",
        re.compile(r"^(.*) needs a reefer trailer \(truck\.trailerType REEFER\)$"),
        lambda m: f"{m.group(1)} needs a reefer: choose Reefer as the trailer type",
    ),
    (
        "code",
        re.compile(r"^(.*) goes with an open trailer such as a flatbed \(truck\.trailerType\)$"),
        lambda m: f"{m.group(1)} needs an open trailer: choose Flatbed or another open one",
    ),
    # The webhook form's authentication methods: the service names the other method and the
    # parameters by their wire paths; the form calls them "Method 2", "Certificate (PEM)".
    (
        "headerName",
        re.compile(r"^is also used by authenticationMethods\[(\d+)\]$"),
        lambda m: f"Method {int(m.group(1)) + 1} sends this header already: choose another name",
    ),
    (
        "headerName",
        re.compile(r"^conflicts with authenticationMethods\[(\d+)\]$"),
        lambda m: (
            f"Method {int(m.group(1)) + 1} sends the Authorization header already: "
            "choose another name"
        ),
    ),
    (
        "headerName",
        re.compile(r"^(.+) is set by the service and cannot carry the key$"),
        lambda m: f"The service sets {m.group(1)} itself: choose another header for the key",
    ),
    (
        "username",
        re.compile(r"^must not contain ':' \(HTTP Basic cannot carry it\)$"),
        lambda _m: "A user name for HTTP Basic cannot contain a colon (:)",
    ),
    (
        "privateKeyPem",
        re.compile(r"^does not belong to certificatePem$"),
        lambda _m: "This private key does not belong to the certificate above",
    ),
    (
        "",
        re.compile(r"^is not a PEM certificate$"),
        lambda _m: "Paste a certificate in PEM form (-----BEGIN CERTIFICATE-----)",
    ),
    (
        "",
        re.compile(r"^is not an unencrypted PEM private key$"),
        lambda _m: "Paste an unencrypted private key in PEM form (-----BEGIN PRIVATE KEY-----)",
    ),
    (
        "",
        re.compile(r"^is the mask of a secret this configuration does not have"),
        lambda _m: "Type the secret: none is stored for this method",
    ),
    (
        "",
        re.compile(r"^only one of BASIC, OAUTH2 and AD_OAUTH2_CERT can be used"),
        lambda _m: (
            "Only one method can sign in with the Authorization header (HTTP Basic or "
            "OAuth 2.0): remove this one or choose another type"
        ),
    ),
    (
        "",
        re.compile(r"^only one client certificate can be presented$"),
        lambda _m: "Only one client certificate can be presented: remove this method",
    ),
    (
        "url",
        re.compile(r"^must be https:// to present a client certificate \(MTLS\)$"),
        lambda _m: "Use an https:// address: a client certificate is presented over TLS only",
    ),
    # The carrier push forms: the "at least one of" rules name the wire fields; the forms
    # call them by their labels and boxes.
    (
        "identifiers",
        re.compile(r"^needs at least one of billOfLadingNumber or orderNumber$"),
        lambda _m: "Enter a bill of lading or an order number",
    ),
    (
        "truckload",
        re.compile(r"^needs at least one of shipmentEvent or readings$"),
        lambda _m: "Tick Shipment event, Readings, or both",
    ),
    (
        "readings",
        re.compile(r"^needs at least one of position or sensor$"),
        lambda _m: (
            "Enter a latitude and longitude, or a reading: ignition, temperature, fuel level "
            "or more sensors"
        ),
    ),
    (
        "location",
        re.compile(r"^(is required|needs geoCoordinates or an address) for POSITION_UPDATE$"),
        lambda _m: "A position update needs a latitude and longitude, or an address",
    ),
    (
        "estimatedTimeOfArrival",
        re.compile(r"^is required for an ETA event$"),
        lambda _m: "An ETA event needs its ETA",
    ),
    # Volume LTL: a carrier's reason for not quoting (a quote's NOT_QUOTED alert; the same
    # words refuse a dispatch beside its units) and the quote form's refusals. The app offers
    # neither unit conversion nor a fall-back group, so the words say what to choose instead.
    (
        "",
        re.compile(
            r"^(.+) rates in (\w+) and ([\w/]+); set apiConfiguration\.enableUnitConversion "
            r"to have \w+ and \w+ converted$"
        ),
        # The units first: at 1366x768 a no-quote's row shows some 55 characters.
        lambda m: (
            f"{m.group(1)} rates only in {m.group(2)} and {' or '.join(m.group(3).split('/'))}: "
            "it does not convert units"
        ),
    ),
    (
        "",
        re.compile(r"^(.+) does not take enhancedHandlingUnits; send lineItems$"),
        lambda m: f"{m.group(1)} does not take handling units: give the freight as line items",
    ),
    (
        "capacityProviderAccountGroup.code",
        re.compile(r"^no account group ('|\")(.+)\1 with carriers; set apiConfiguration\."),
        lambda m: (
            f"Account group {m.group(2)} has no carriers: choose another group or All my "
            "volume LTL carriers"
        ),
    ),
    (
        "code",
        re.compile(r"^('|\")(.+)\1 is not offered; use one of .+ or set apiConfiguration\."),
        lambda m: f"Volume LTL carriers do not offer {m.group(2)}: untick it",
    ),
    # Volume LTL dispatch: the rules the app checks before sending (the service's words).
    (
        "",
        re.compile(r"^is required \(or set a default contact on the carrier account\)$"),
        lambda _m: "Required: this carrier has no default contact to use",
    ),
    (
        "pickupNote",
        re.compile(
            r"^the note sent to the carrier would be (\d+) characters, and the carrier takes "
            r"(\d+); shorten the notes or set apiConfiguration\."
        ),
        lambda m: (
            f"The carrier takes notes of {m.group(2)} characters; with the services it notes, "
            f"this one comes to {m.group(1)}: shorten it"
        ),
    ),
    (
        "endTime",
        re.compile(r"^must be after startTime$"),
        lambda _m: "Must be after the start time",
    ),
    (
        "deliveryWindow.date",
        re.compile(r"^must not be before pickupWindow\.date$"),
        lambda _m: "Must not be before the pickup day",
    ),
    (
        "",
        re.compile(r"^Field required$"),
        lambda _m: "Fill this in",
    ),
    # A stop the rating service cannot put on its map (the Rate request form's stops).
    (
        "location",
        re.compile(r"^cannot be placed: give coordinates, or an address with a known city"),
        lambda _m: (
            "FreightDesk cannot find this place: enter a city or a postal code it knows, or "
            "the state or province (US, Canada, Mexico)"
        ),
    ),
    # Rail: the form's Tracking row, its Bills of lading and Waybills boxes.
    (
        "trackingStartDateTime",
        re.compile(r"^is required when no shipment identifier \(BILL_OF_LADING or WAYBILL\)"),
        lambda _m: "Tick Start tracking at, or enter a bill of lading or a waybill",
    ),
    # Sailing schedules: a window's days (departureStartDate ... arrivalEndDate).
    (
        "",
        re.compile(r"^must not be before (departure|arrival)StartDate$"),
        lambda m: f"Must not be before the first {m.group(1)} day",
    ),
    (
        "",
        re.compile(r"^is required together with (departure|arrival)(Start|End)Date$"),
        lambda m: f"Enter both days of the {m.group(1)} window",
    ),
    # Bookings: a booking the carrier answered for good is no longer the form's to change.
    # The service names it by its uuid and states by codes; the form is about that booking.
    # "... is BOOKED already": answered by someone else while the carrier's answer was sent.
    (
        "status",
        re.compile(
            r"^Booking \S+ is (\w+)(?:; only PROCESSING or UNDER_REVIEW bookings "
            r"(can be updated|take a carrier response)| already)$"
        ),
        lambda m: (
            f"This booking {_BOOKING_STATES.get(m.group(1), 'was answered')}; only a booking "
            "being processed or under review can "
            + ("be changed" if m.group(2) == "can be updated" else "take the carrier's answer")
        ),
    ),
    # Booking a second quote of a rate request whose booking is still live (being processed,
    # under review or booked): the service names both by uuid and the state by its code; the
    # way out is to cancel that booking first (Bookings pane). Said under the whole form: the
    # rate identifiers typed are not what is wrong.
    (
        "rateIdentifiers",
        re.compile(
            r"^Rate request \S+ already has (?:booking \S+ \((\w+)\)|a booking in progress)"
        ),
        lambda m: booked_already(m.group(1)),
    ),
    # A carrier accepting a booking without an identifier tracking can find the shipment by
    # (the Push pane's booking answer): the service lists the kinds by their codes.
    (
        "carrierProvidedIdentifiers",
        re.compile(r"^tracking needs an identifier that names the shipment; give one of (.+)$"),
        lambda m: f"Give {_kinds_number(m.group(1))} so the shipment can be found",
    ),
    # Available vehicles: a radius outside its unit's bounds, in the unit's name as the
    # search form's box says it (the one table of codes' words).
    (
        "radius",
        re.compile(r"^must be from (\d+) to (\d+) (\w+)$"),
        lambda m: f"Enter from {int(m.group(1)):,} to {int(m.group(2)):,} {unit_name(m.group(3))}",
    ),
    # A company's id (the service's tenant uuid) it does not know: the Sharing tab's and the
    # Documents upload's shipper. The partner gives it, so they can check it.
    (
        "",
        re.compile(r"^no tenant has (this uuid|the uuid \S+)$"),
        lambda _m: "No company has this id: check it with your partner",
    ),
    # A carrier's push naming a company the service does not know (the service says
    # "tenant" and "uuid"): the field asks for the customer's company id.
    (
        "customerAccountNumber",
        re.compile(r"^names no customer tenant"),
        lambda _m: "No company has this id: check it with your customer",
    ),
    # A shipper's account naming another company on a carrier push (the service says
    # "tenant"): the field asks for the customer's company id.
    (
        "customerAccountNumber",
        re.compile(r"^only a carrier tenant may push updates for another tenant"),
        lambda _m: (
            "Only a carrier's account may push updates for another company: leave this empty "
            "to update your own shipments"
        ),
    ),
    (
        "",
        re.compile(r"^'' is not a valid HTTP header name$"),
        lambda _m: "Enter a header name",
    ),
    (
        "",
        re.compile(r"^'(.+)' is not a valid HTTP header name$"),
        lambda m: f"{m.group(1)!r} cannot be a header name: use letters, digits and dashes",
    ),
]


def _kinds_number(listed: str) -> str:
    """ "BILL_OF_LADING, PRO, PRO_NUMBER" (identifier types) -> "a bill of lading or PRO
    number": each kind in words (`code_text`, as the form's choice says it) and said once
    ("PRO" and "PRO number" are one), "number" said once at the end."""
    kinds: list[str] = []
    for code in listed.split(", "):
        kind = code_text(code).removesuffix(" number")
        kind = kind if kind[:2].isupper() else kind[:1].lower() + kind[1:]
        if kind not in kinds:
            kinds.append(kind)
    named = _either(kinds)
    return f"{'an' if named[:1] in 'aeiouAEIOU' else 'a'} {named} number"


def _bound(text: str) -> str:
    """A bound as pydantic writes it (`0.0`, `90`) as a dispatcher would (0, 90)."""
    return text.removesuffix(".0")


def _choices(listed: str) -> str:
    """ "'A', 'B' or 'C'" (pydantic's list of allowed values) -> "A, B or C" in words."""
    return _either([code_words(code) for code in re.findall(r"'([^']*)'", listed)])


def _either(named: list[str]) -> str:
    """["A", "B", "C"] -> "A, B or C"."""
    return named[0] if len(named) == 1 else f"{', '.join(named[:-1])} or {named[-1]}"


# pydantic's own words (`msg` of each error type a form can meet) and the models' shapes',
# whichever side says them: the app's checks before sending, or the service's 400 (its
# `message` is pydantic's `msg`). They say what the value is not ("Input should be ...");
# a dispatcher needs what to type. Pinned by tests/service/test_form_words.py.
_VALIDATOR: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]] = [
    (
        re.compile(r"^Input should be greater than or equal to (\S+)$"),
        lambda m: f"Enter {_bound(m.group(1))} or more",
    ),
    (
        re.compile(r"^Input should be greater than (\S+)$"),
        lambda m: f"Enter more than {_bound(m.group(1))}",
    ),
    (
        re.compile(r"^Input should be less than or equal to (\S+)$"),
        lambda m: f"Enter {_bound(m.group(1))} or less",
    ),
    (
        re.compile(r"^Input should be less than (\S+)$"),
        lambda m: f"Enter less than {_bound(m.group(1))}",
    ),
    (
        re.compile(r"^Input should be a multiple of (\S+)$"),
        lambda m: f"Enter a multiple of {_bound(m.group(1))}",
    ),
    (re.compile(r"^String should have at least 1 character$"), lambda _m: "Fill this in"),
    (
        re.compile(r"^String should have at least (\d+) characters$"),
        lambda m: f"Use at least {m.group(1)} characters",
    ),
    (
        re.compile(r"^(String|URL) should have at most (\d+) characters?$"),
        lambda m: f"Use at most {m.group(2)} characters",
    ),
    (
        re.compile(r"^String should contain only ASCII characters$"),
        lambda _m: "Use letters without accents, digits and punctuation only",
    ),
    (
        re.compile(r"^String should match pattern "),
        lambda _m: "Check what is typed here: it does not have the expected form",
    ),
    (
        re.compile(r"^\w+ should have at least 1 item after validation"),
        lambda _m: "Add at least one",
    ),
    (
        re.compile(r"^\w+ should have at least (\d+) items after validation"),
        lambda m: f"Add at least {m.group(1)}",
    ),
    (
        re.compile(r"^\w+ should have at most (\d+) items? after validation"),
        lambda m: f"Give at most {m.group(1)}",
    ),
    # literal_error and enum: the values allowed, quoted.
    (
        re.compile(r"^Input should be ('[^']*'(?:(?:, | or )'[^']*')*)$"),
        lambda m: f"Choose {_choices(m.group(1))}",
    ),
    (
        re.compile(r"^(Input should be a valid UUID|UUID input should be|UUID version)"),
        lambda _m: "Choose one from the list",
    ),
    (
        re.compile(r"^Input should be a valid datetime\b"),
        lambda _m: "Enter a date and a time",
    ),
    (re.compile(r"^Input should be a valid date\b"), lambda _m: "Enter a date"),
    # The models' rules end a sentence ("is required", "is required for an address in US"):
    # beside its field, a sentence of its own.
    (re.compile(r"^is required\b(.*)$"), lambda m: sentence("Required" + m.group(1))),
    # The push models' time stamps (models/push.py): a time field left empty.
    (
        re.compile(r"^must be (formatted yyyy-MM-dd'T'HH:mm:ssZ|an ISO 8601 date-time)"),
        lambda _m: "Enter a date and a time",
    ),
    (
        re.compile(r"^Input should (be a valid time|be in a valid time format)\b"),
        lambda _m: "Enter a time of day such as 08:30",
    ),
    (
        re.compile(r"^Input should have timezone info$"),
        lambda _m: "Give the time with its time zone",
    ),
    (
        re.compile(r"^Input should be in the (past|future)$|^Date should be in the (past|future)$"),
        lambda m: f"Must be in the {m.group(1) or m.group(2)}",
    ),
    (
        re.compile(
            r"^Input should be a valid (integer|number|decimal)\b|^Input should be a finite"
        ),
        lambda m: "Enter a whole number" if m.group(1) == "integer" else "Enter a number",
    ),
    (
        re.compile(r"^Decimal input should have no more than (\d+) decimal places?$"),
        lambda m: f"Use at most {m.group(1)} decimals",
    ),
    (re.compile(r"^Input should be a valid boolean\b"), lambda _m: "Choose yes or no"),
    (
        re.compile(
            r"^(Input should be a valid URL|URL scheme should be|Input violated strict URL)"
        ),
        lambda _m: "Enter a web address such as https://example.com/hook",
    ),
    (re.compile(r"^Input should be a valid string\b"), lambda _m: "Enter text here"),
    # Any other of pydantic's words a form should not meet: not its wording either.
    (
        re.compile(r"^(Input|String|Decimal|Data|URL|UUID|JSON input) should "),
        lambda _m: "FreightDesk cannot read what is given here: check it",
    ),
]

# Wire names and codes left in a message no rule rewords (a model's rule says
# "must not be before departureStartDate"): said as words. Quoted text is what was typed.
_QUOTED = re.compile(r"('[^']*'|\"[^\"]*\")")
_WIRE_NAME = re.compile(r"\b(?:[a-z]\w*(?:\[\d+\])?\.)*([a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+)\b")
# A code of more than one word (UNDER_REVIEW); one of a word may be what was typed (a site or
# group code), or an abbreviation a dispatcher knows (LTL, SCAC).
_CODE = re.compile(r"\b[A-Z][A-Z0-9]+(?:_[A-Z0-9]+)+\b")
# A message starting with a word (not a file's name or a number) starts its sentence.
_FIRST_WORD = re.compile(r"[a-z]+(?![\w.@/-])")


def _name_words(found: re.Match[str]) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r" \1", found.group(1)).lower()


def sentence(message: str) -> str:
    """`message` as a sentence of words: wire names and codes outside quotes in words, and
    a capital letter first."""
    parts = _QUOTED.split(message)
    for index in range(0, len(parts), 2):  # even parts lie outside quotes
        words = _WIRE_NAME.sub(_name_words, parts[index])
        parts[index] = _CODE.sub(lambda m: m.group(0).replace("_", " ").lower(), words)
    said = "".join(parts)
    return said[:1].upper() + said[1:] if _FIRST_WORD.match(said) else said


def plain_words(path: str, message: str) -> str:
    """`message` about the field at `path` in words a dispatcher reads: the service's words
    by the table, pydantic's by theirs, any other as a sentence."""
    for ending, pattern, words in _PLAIN:
        if ending and not (path == ending or path.endswith("." + ending)):
            continue
        found = pattern.match(message)
        if found is not None:
            return words(found)
    for pattern, words in _VALIDATOR:
        found = pattern.match(message)
        if found is not None:
            return words(found)
    return sentence(message)


def plain(problems: dict[str, str]) -> dict[str, str]:
    """Every message of `problems` in plain words (see `plain_words`)."""
    return {path: plain_words(path, message) for path, message in problems.items()}
