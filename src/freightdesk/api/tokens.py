"""Bearer tokens: fetched once, reused until they expire or a 401 says so, never too often.

A token can also be kept between runs (`TokenKeeper`): the service gives each client
application only a few new tokens a minute, and an app restarted a few times in a minute (or a
second window on the same profile) would otherwise wait out a 429 before showing anything.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol, TypeVar

import httpx
from pydantic import ValidationError

from freightdesk.api.errors import ConnectionFailed, ProtocolError, error_from_response
from freightdesk.models.auth import TokenResponse

log = logging.getLogger(__name__)

TOKEN_PATH = "/api/v4/oauth2/token"
CredentialsIn = Literal["basic", "body"]
T = TypeVar("T")


@dataclass(frozen=True)
class Token:
    value: str
    expires_at: float  # on the manager's monotonic clock


@dataclass(frozen=True)
class KeptToken:
    """A token as kept between runs."""

    value: str
    # Seconds since the epoch: a monotonic clock starts again with the machine.
    expires_at: float

    def __repr__(self) -> str:  # never the token itself, should one be logged
        return f"KeptToken(expires_at={self.expires_at!r})"


class TokenKeeper(Protocol):
    """Where a token is kept between runs (for one client application at one service).

    Its methods may block (a system keyring answers over IPC): the manager calls them in a
    worker thread. A keeper that fails is logged and otherwise ignored: the token is only a
    saving, never needed."""

    def load(self) -> KeptToken | None: ...

    def save(self, token: KeptToken) -> None: ...

    def forget(self, value: str) -> None:
        """Drop the kept token if it is still `value` (another window may have kept a newer
        one meanwhile)."""

    def secret(self) -> str | None:
        """The client secret as kept now: a new one may have been kept since this run read
        it (made in this window's or another's Client applications dialog)."""


class TokenManager:
    """Holds the current token; at most one task fetches a new one at a time.

    The interface allows 5 new tokens per client application per minute; the manager keeps
    under that by itself (it waits rather than being refused), and a new token is fetched
    only when the current one is about to expire or the service said it is no longer valid.
    With a `keeper`, the first token asked for is the one kept by an earlier run while it is
    valid for more than the margin, and each new token is kept in its place.
    """

    REFRESH_MARGIN = 60.0

    def __init__(
        self,
        http: httpx.AsyncClient,
        client_id: str,
        client_secret: str,
        *,
        credentials_in: CredentialsIn = "basic",
        token_path: str = TOKEN_PATH,
        per_minute: int = 5,
        clock: Callable[[], float] = time.monotonic,
        keeper: TokenKeeper | None = None,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self._http = http
        self._client_id = client_id
        self._client_secret = client_secret
        self._credentials_in = credentials_in
        self._token_path = token_path
        self._per_minute = per_minute
        self._clock = clock
        self._token: Token | None = None
        self._lock = asyncio.Lock()
        self._fetched: deque[float] = deque()
        self._keeper = keeper
        self._wall_clock = wall_clock
        self._kept_read = keeper is None
        # A token the service refused, dropped from the keeper before the next one is fetched.
        self._refused: str | None = None
        self.reused = False  # whether the current token was kept by an earlier run

    @property
    def current(self) -> str | None:
        return self._token.value if self._token is not None else None

    def _valid(self, token: Token) -> bool:
        return token.expires_at - self.REFRESH_MARGIN > self._clock()

    async def get(self) -> str:
        token = self._token
        if token is not None and self._valid(token):
            return token.value
        async with self._lock:
            token = self._token
            if token is not None and self._valid(token):
                return token.value
            keeper = self._keeper
            if keeper is not None and not self._kept_read:
                self._kept_read = True
                kept = await self._in_worker("read", keeper.load)
                if kept is not None:
                    token = Token(kept.value, self._clock() + kept.expires_at - self._wall_clock())
                    if self._valid(token):  # else not even sent: a fresh one is fetched
                        self._token, self.reused = token, True
                        return token.value
            refused, self._refused = self._refused, None
            if keeper is not None and refused is not None:
                await self._in_worker("forget", lambda: keeper.forget(refused))
            self._token = token = await self._fetch()
            self.reused = False
            if keeper is not None:
                expires_at = self._wall_clock() + token.expires_at - self._clock()
                kept = KeptToken(token.value, expires_at)
                await self._in_worker("keep", lambda: keeper.save(kept))
            return token.value

    def invalidate(self, value: str) -> None:
        """Forget `value` (the service refused it); a newer token fetched meanwhile stays."""
        if self._token is not None and self._token.value == value:
            self._token = None
            self._refused = value

    async def _in_worker(self, action: str, call: Callable[[], T]) -> T | None:
        """`call` (the keeper's, which may block) in a worker thread; None when it fails."""
        try:
            return await asyncio.to_thread(call)
        except Exception as exc:
            # Only a saving is lost: the next start fetches a token of its own. The exception
            # is named, not shown: its text is the keyring's, and need not be harmless.
            log.warning("could not %s the access token: %s", action, type(exc).__name__)
            return None

    async def _fetch(self) -> Token:
        await self._respect_limit()
        secret_read = False
        for _ in range(3):
            data = {"grant_type": "client_credentials"}
            auth: httpx.Auth | None = None
            if self._credentials_in == "basic":
                auth = httpx.BasicAuth(self._client_id, self._client_secret)
            else:
                data |= {"client_id": self._client_id, "client_secret": self._client_secret}
            self._fetched.append(self._clock())
            try:
                response = await self._http.post(
                    self._token_path, data=data, auth=auth or httpx.USE_CLIENT_DEFAULT
                )
            except httpx.TransportError as exc:
                raise ConnectionFailed(
                    f"cannot reach the token endpoint: {exc}", cause=exc
                ) from exc
            if response.status_code == 429:
                wait = float(response.headers.get("retry-after", "5") or 5)
                log.warning("token endpoint asks to wait %.0f s", wait)
                await asyncio.sleep(min(wait, 60.0))
                continue
            if response.status_code == 401 and self._keeper is not None and not secret_read:
                # The secret was replaced (every token of it revoked with it): a window that
                # made the new one kept it where this run found its own; the others too.
                secret_read = True
                if await self._adopt_kept_secret():
                    continue
            if response.status_code >= 400:
                raise error_from_response(response)
            try:
                parsed = TokenResponse.model_validate_json(response.content)
            except ValidationError as exc:
                raise ProtocolError(
                    f"the token endpoint answered an unexpected body: {exc.errors()[0]['msg']}",
                    status=response.status_code,
                    body=response.content,
                ) from exc
            return Token(parsed.access_token, self._clock() + parsed.expires_in)
        raise error_from_response(response)

    async def _adopt_kept_secret(self) -> bool:
        """Take the secret kept now if it is another than the one refused; whether it was."""
        keeper = self._keeper
        assert keeper is not None
        kept = await self._in_worker("read the secret for", keeper.secret)
        if not kept or kept == self._client_secret:
            return False
        log.info("the client secret was replaced; using the one kept now")
        self._client_secret = kept
        return True

    async def _respect_limit(self) -> None:
        now = self._clock()
        while self._fetched and now - self._fetched[0] >= 60.0:
            self._fetched.popleft()
        if len(self._fetched) >= self._per_minute:
            wait = 60.0 - (now - self._fetched[0]) + 0.05
            log.info("waiting %.1f s to stay within %d tokens a minute", wait, self._per_minute)
            await asyncio.sleep(wait)
            self._fetched.popleft()
