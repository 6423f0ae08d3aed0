"""Why an attempt failed: plain words for whoever reads the delivery log, and the detail.

The words say what happened in terms one can act on (the receiver refused the connection, did
not answer in time, its host name was not found, its TLS certificate was not accepted, it
answered 503 Service Unavailable); the detail is what the network stack, the TLS library or
the receiver said, for whoever debugs the receiver. The failure is classified here, where the
exception is at hand, not later from its text (which differs between platforms and Python
versions: a refused connection reads "Connect call failed ('127.0.0.1', 8080)").

The delivery log answers both (`error`, `errorDetail`). They are kept in the attempt's one
error column as the words, a line break and the detail (`stored`, `parsed`); a row from before
holds one line, the service's text of the time, answered as `error` alone.
"""

from __future__ import annotations

import errno
import re
import socket
import ssl
from dataclasses import dataclass
from http import HTTPStatus

from freightdesk.server.webhooks.credentials import CredentialError
from freightdesk.server.webhooks.http11 import Closed, ConnectTimeout, ProxyError, TransportError
from freightdesk.server.webhooks.targets import HOW_TO_ALLOW, TargetRefused

# The error column's length (webhook attempts).
ERROR_LENGTH = 500
# The words are short; the detail gets what is left of the column.
_WORDS_LENGTH = 240
_SNIPPET_LENGTH = 200

_UNREACHABLE = {errno.ENETUNREACH, errno.EHOSTUNREACH, errno.ENETDOWN, errno.EHOSTDOWN}
_RESET = {errno.ECONNRESET, errno.ECONNABORTED, errno.EPIPE}
# "Multiple exceptions: [Errno 111] Connect call failed (...), [Errno 111] ..." (Python 3.11
# joins the errors of each address of a host name into one OSError without an errno).
_ERRNO = re.compile(r"\[Errno (-?\d+)\]")

# A hint after the status where it says what to check.
_HINTS = {
    401: "it did not accept the credentials; check Authentication",
    403: "it did not accept the credentials; check Authentication",
    404: "it has no such address; check the URL",
    410: "it asked not to be called again",
}


@dataclass(frozen=True)
class Failure:
    words: str
    detail: str


def _technical(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    cause = exc.__cause__
    if cause is not None:
        text += f" (from {type(cause).__name__}: {cause})"
    return text


def _errnos(exc: OSError) -> set[int]:
    if exc.errno is not None:
        return {exc.errno}
    return {int(n) for n in _ERRNO.findall(str(exc))}


def _network_words(exc: OSError, where: str) -> str:
    """A connection to the receiver at `where` (host:port) that could not be made, or broke."""
    if isinstance(exc, socket.gaierror):
        host = where.rsplit(":", 1)[0].strip("[]")
        return f"The receiver's host name {host} was not found (DNS); check the URL"
    numbers = _errnos(exc)
    if numbers and numbers <= {errno.ECONNREFUSED}:
        return f"The receiver refused the connection: nothing accepts connections at {where}"
    if numbers and numbers <= {errno.ETIMEDOUT}:
        return f"The connection to the receiver at {where} timed out"
    if numbers and numbers <= _UNREACHABLE:
        return f"The receiver at {where} cannot be reached from this computer (no route)"
    if numbers and numbers <= _RESET:
        return "The receiver closed the connection without answering"
    return f"No connection could be made to the receiver at {where}"


def _tls_words(exc: ssl.SSLError) -> str:
    if isinstance(exc, ssl.SSLCertVerificationError):
        why = (exc.verify_message or "it could not be verified").rstrip(".")
        return f"The receiver's TLS certificate was not accepted ({why})"
    reason = (exc.reason or "").upper()
    if "ALERT" in reason and ("CERTIFICATE" in reason or "UNKNOWN_CA" in reason):
        return "The receiver did not accept the client certificate (MTLS; TLS refused)"
    return "The secure (TLS) connection to the receiver failed"


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def of_exception(exc: BaseException, *, where: str, timeout_seconds: float) -> Failure:
    """The failure of an attempt that raised `exc`; `where` is the receiver's host:port."""
    detail = _technical(exc)
    cause = exc.__cause__
    if isinstance(exc, CredentialError):
        words = f"Could not get an access token for the receiver: {exc}"
        detail = exc.detail or detail
    elif isinstance(exc, TargetRefused):
        # Nothing was sent: the same words whether the port is open, closed or filtered.
        words = f"Not sent: {exc}"
        detail = f"{detail}; {HOW_TO_ALLOW}"
    elif isinstance(exc, ConnectTimeout):
        words = f"The connection to the receiver at {where} timed out ({exc})"
    elif isinstance(exc, TimeoutError):
        words = f"The receiver did not answer within {timeout_seconds:g} s (timed out)"
        detail = f"no answer within {timeout_seconds:g} s ({type(exc).__name__})"
    elif isinstance(exc, ProxyError):
        # Its message names the proxy and what it did; why it could not be reached (the
        # cause) is in the detail.
        words = f"The receiver could not be reached: {exc}"
    elif isinstance(exc, Closed) and isinstance(cause, ssl.SSLError):
        words = _tls_words(cause)
    elif isinstance(exc, Closed):
        words = "The receiver closed the connection without answering"
    elif isinstance(exc, TransportError):
        words = f"The receiver's answer could not be read: {exc}"
    elif isinstance(exc, ssl.SSLError):
        words = _tls_words(exc)
    elif isinstance(exc, OSError):
        words = _network_words(exc, where)
    else:
        words = "The service failed to send the message (a fault of the service); it is retried"
    return Failure(words, detail)


def of_status(status: int, body: bytes) -> Failure:
    """An answer other than 2xx: the status with its reason phrase, and what the body said."""
    try:
        phrase = f" {HTTPStatus(status).phrase}"
    except ValueError:
        phrase = ""
    words = f"The receiver answered {status}{phrase}"
    if status in _HINTS:
        words += f": {_HINTS[status]}"
    elif 300 <= status < 400:
        words += ": redirects are not followed; configure the final URL"
    snippet = " ".join(body.decode("utf-8", "replace").split())[:_SNIPPET_LENGTH]
    return Failure(words, f"HTTP {status}" + (f": {snippet}" if snippet else ""))


def of_problem(problem: str) -> Failure:
    """A configuration that cannot be sent at all (its text is the service's own words)."""
    return Failure(_sentence(problem), problem)


def stored(words: str | None, detail: str | None) -> str | None:
    """The error column's text: the words, then the detail on a line of its own."""
    if not words:
        return None
    words = " ".join(words.split())[:_WORDS_LENGTH]
    if not detail:
        return words
    rest = ERROR_LENGTH - len(words) - 1
    return f"{words}\n{' '.join(detail.split())[:rest]}"


def parsed(text: str | None) -> tuple[str | None, str | None]:
    """The words and the detail of a stored error (a row from before: its text, no detail)."""
    if not text:
        return None, None
    words, _, detail = text.partition("\n")
    return words, detail or None
