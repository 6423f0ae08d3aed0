"""Who is calling: bearer tokens, deprecated HTTP Basic, the admin's Basic, tenant roles."""

from __future__ import annotations

import base64
import binascii
import hashlib
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Annotated, TypeVar

from fastapi import Depends, Request, Response
from fastapi.concurrency import run_in_threadpool
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from freightdesk.models.auth import ROLE_HEADER, TenantRole
from freightdesk.server.context import (
    ContextDep,
    ServiceContext,
    context_of,
    on_loop_when_cheap,
)
from freightdesk.server.db import utcnow
from freightdesk.server.domain.login_throttle import LoginThrottle
from freightdesk.server.domain.tenants import verify_password
from freightdesk.server.errors import ApiError, field_error
from freightdesk.server.principal import Principal
from freightdesk.server.tables.tenancy import AccessToken, ClientApp, Tenant, User

_BEARER_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="freightdesk"'}
_BASIC_CHALLENGE = {"WWW-Authenticate": 'Basic realm="freightdesk"'}


@dataclass(frozen=True)
class _Identity:
    tenant_id: int
    tenant_uuid: str
    tenant_name: str
    user: str
    client_id: str | None


# How long a token read from the database is trusted from memory before it is read again: a
# token revoked by another process (`freightdesk client rotate`) stops working within this.
TOKEN_CACHE_SECONDS = 5.0


class TokenStore:
    """Issues opaque bearer tokens (stored hashed) and resolves them with an in-memory cache."""

    def __init__(self, context: ServiceContext) -> None:
        self._context = context
        # token hash -> (identity, expiry, monotonic time until which the entry is trusted)
        self._cache: dict[str, tuple[_Identity, datetime, float]] = {}
        self._lock = threading.Lock()
        self._issued: dict[str, deque[float]] = {}

    def issue(self, session: Session, app: ClientApp) -> tuple[str, int]:
        self._check_rate(app.id)
        token = secrets.token_urlsafe(32)
        lifetime = self._context.settings.token_lifetime_seconds
        now = utcnow()
        session.add(
            AccessToken(
                token_hash=_token_hash(token),
                client_id=app.id,
                expires_at=now + timedelta(seconds=lifetime),
            )
        )
        # Expired tokens are of no use to anyone; sweep them while we are writing anyway.
        session.execute(delete(AccessToken).where(AccessToken.expires_at < now))
        return token, lifetime

    def _check_rate(self, client_id: str) -> None:
        window = 60.0
        limit = self._context.settings.tokens_per_minute
        now = time.monotonic()
        with self._lock:
            issued = self._issued.setdefault(client_id, deque())
            while issued and now - issued[0] >= window:
                issued.popleft()
            if len(issued) >= limit:
                retry_after = max(1, int(window - (now - issued[0])) + 1)
                raise ApiError(
                    429,
                    f"At most {limit} new tokens per client application per minute; "
                    f"reuse the token you have or retry in {retry_after} s",
                    headers={"Retry-After": str(retry_after)},
                )
            issued.append(now)

    def cached(self, token: str) -> _Identity | None:
        """The identity of a token still trusted from the cache, without the database (None:
        ask `resolve`); raises if it is known to have expired."""
        key = _token_hash(token)
        with self._lock:
            cached = self._cache.get(key)
        if cached is None:
            return None
        identity, expires, trusted_until = cached
        if expires <= utcnow():
            with self._lock:
                self._cache.pop(key, None)
            raise _expired()
        return identity if time.monotonic() < trusted_until else None

    def resolve(self, session: Session, token: str) -> _Identity:
        identity = self.cached(token)
        if identity is not None:
            return identity
        key = _token_hash(token)
        now = utcnow()
        row = session.execute(
            select(AccessToken, ClientApp, Tenant)
            .join(ClientApp, ClientApp.id == AccessToken.client_id)
            .join(Tenant, Tenant.id == ClientApp.tenant_id)
            .where(AccessToken.token_hash == key)
        ).first()
        if row is None:
            with self._lock:
                self._cache.pop(key, None)
            raise ApiError(401, "The bearer token is not valid", headers=_BEARER_CHALLENGE)
        access, app, tenant = row
        if access.expires_at <= now:
            raise _expired()
        domain = self._context.settings.client_applications_domain
        identity = _Identity(
            tenant_id=tenant.id,
            tenant_uuid=tenant.uuid,
            tenant_name=tenant.name,
            user=f"app-{app.id}@{domain}",
            client_id=app.id,
        )
        with self._lock:
            if len(self._cache) > 10_000:
                self._cache.clear()
            trusted_until = time.monotonic() + TOKEN_CACHE_SECONDS
            self._cache[key] = (identity, access.expires_at, trusted_until)
        return identity

    def forget_client(self, client_id: str) -> None:
        """Drop cached tokens of a deleted or rotated client application at once."""
        with self._lock:
            for key in [k for k, entry in self._cache.items() if entry[0].client_id == client_id]:
                del self._cache[key]


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _expired() -> ApiError:
    return ApiError(
        401,
        "The bearer token has expired; request a new one",
        headers={"WWW-Authenticate": 'Bearer realm="freightdesk", error="invalid_token"'},
    )


def token_store(context: ServiceContext) -> TokenStore:
    store = context.services.get("tokens")
    if store is None:
        store = TokenStore(context)
        context.services["tokens"] = store
    assert isinstance(store, TokenStore)
    return store


def parse_basic(header: str) -> tuple[str, str] | None:
    """The user and password of an `Authorization: Basic` header, or None if it is not one."""
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "basic" or not value:
        return None
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        raise ApiError(
            401, "The Basic credentials are not valid base64", headers=_BASIC_CHALLENGE
        ) from None
    if "\x00" in decoded:
        # PostgreSQL cannot compare a name with a NUL (SQLite would): refused alike on both.
        raise field_error("Authorization", "must not contain NUL characters")
    user, sep, password = decoded.partition(":")
    if not sep:
        raise ApiError(401, "The Basic credentials need user:password", headers=_BASIC_CHALLENGE)
    return user, password


T = TypeVar("T")


def throttled(request: Request, kind: str, name: str, check: Callable[[], T]) -> T:
    """`check()` of a client's secret (`kind` "client") or a user's password ("user"), refused
    with 429 while failed logins of this name or from this address shut it out (see
    domain/login_throttle.py)."""
    context: ServiceContext = request.app.state.context
    throttle = context.services.get("login_throttle")
    if throttle is None:
        throttle = context.services.setdefault("login_throttle", LoginThrottle())
    assert isinstance(throttle, LoginThrottle)
    address = request.client.host if request.client is not None else None
    throttle.check(kind, name, address)
    try:
        result = check()
    except ApiError as exc:
        if exc.status == 401:
            throttle.failed(kind, name, address)
        raise
    throttle.succeeded(kind, name)
    return result


_verified_lock = threading.Lock()
_verified: dict[str, tuple[int, float]] = {}


def check_user(session: Session, username: str, password: str) -> tuple[User, Tenant]:
    """A user's password check; successful checks are remembered briefly since PBKDF2 is slow."""
    key = hashlib.sha256(f"{username}\0{password}".encode()).hexdigest()
    now = time.monotonic()
    with _verified_lock:
        hit = _verified.get(key)
    if hit is not None and now - hit[1] < 60:
        user = session.get(User, hit[0])
    else:
        user = session.scalar(select(User).where(User.username == username))
        if user is None or not verify_password(password, user.password_hash):
            raise ApiError(401, "The user name or password is not valid", headers=_BASIC_CHALLENGE)
        with _verified_lock:
            _verified[key] = (user.id, now)
    if user is None:
        raise ApiError(401, "The user name or password is not valid", headers=_BASIC_CHALLENGE)
    tenant = session.get(Tenant, user.tenant_id)
    assert tenant is not None
    return user, tenant


def _role(request: Request) -> TenantRole:
    value = request.headers.get(ROLE_HEADER)
    if value is None or not value.strip():
        return TenantRole.SHIPPER
    try:
        return TenantRole(value.strip().upper())
    except ValueError:
        raise field_error(ROLE_HEADER, f"must be SHIPPER or CARRIER, not {value!r}") from None


def require_principal(request: Request, response: Response, context: ContextDep) -> Principal:
    """Bearer token (or deprecated Basic of a user) for every operation but the admin ones."""
    header = request.headers.get("authorization", "")
    role = _role(request)
    token = _bearer_token(header)
    if token:
        identity = token_store(context).cached(token)
        return _bearer_principal(request, context, token, identity, role)
    with context.sessions() as session:
        if (basic := parse_basic(header)) is not None:
            user, tenant = throttled(request, "user", basic[0], lambda: check_user(session, *basic))
            # Still functional, as the interface says, but marked so callers can move off it.
            response.headers["Deprecation"] = "true"
            response.headers["Link"] = '</api/v4/oauth2/token>; rel="successor-version"'
            principal = Principal(tenant.id, tenant.uuid, tenant.name, user.username, role)
        else:
            raise ApiError(
                401,
                "This operation needs 'Authorization: Bearer <token>'; get a token from "
                "POST /api/v4/oauth2/token",
                headers=_BEARER_CHALLENGE,
            )
    request.state.principal = principal
    return principal


def require_admin(request: Request, context: ContextDep) -> Principal:
    """HTTP Basic of a Customer Admin user: managing client applications needs nothing less."""
    basic = parse_basic(request.headers.get("authorization", ""))
    if basic is None:
        raise ApiError(
            401,
            "Managing client applications needs HTTP Basic of a Customer Admin user",
            headers=_BASIC_CHALLENGE,
        )
    with context.sessions() as session:
        user, tenant = throttled(request, "user", basic[0], lambda: check_user(session, *basic))
        if user.role != "CUSTOMER_ADMIN":
            raise ApiError(403, "Only a Customer Admin can manage client applications")
    principal = Principal(tenant.id, tenant.uuid, tenant.name, user.username, _role(request))
    request.state.principal = principal
    return principal


def _bearer_token(header: str) -> str:
    scheme, _, credentials = header.partition(" ")
    return credentials.strip() if scheme.lower() == "bearer" else ""


def _bearer_principal(
    request: Request,
    context: ServiceContext,
    token: str,
    identity: _Identity | None,
    role: TenantRole,
) -> Principal:
    """The caller of a bearer token, from `identity` if the cache trusts it, otherwise read
    from the database."""
    if identity is None:
        with context.sessions() as session:
            identity = token_store(context).resolve(session, token)
    principal = Principal(
        identity.tenant_id,
        identity.tenant_uuid,
        identity.tenant_name,
        identity.user,
        role,
        identity.client_id,
    )
    request.state.principal = principal
    return principal


def trusted_principal(request: Request) -> Principal | None:
    """The caller of a bearer token the cache trusts (a hash lookup, without a session: about
    half the bearer check's cost on every request, issue 18); None when the request needs
    more of `_principal` (another scheme, a token to read from the database). Raises as
    `_principal` does for an expired token or a bad role header."""
    context = context_of(request)
    token = _bearer_token(request.headers.get("authorization", ""))
    identity = token_store(context).cached(token) if token else None
    if identity is None:
        return None
    return _bearer_principal(request, context, token, identity, _role(request))


async def _principal(request: Request, response: Response) -> Principal:
    """`require_principal`, on the event loop when that is cheap: a bearer token the cache
    trusts or one read from SQLite. Basic checks a password hash, which is slow, so it always
    runs in the thread pool."""
    principal = trusted_principal(request)
    if principal is not None:
        return principal
    context = context_of(request)
    token = _bearer_token(request.headers.get("authorization", ""))
    if not token:
        return await run_in_threadpool(require_principal, request, response, context)
    return await on_loop_when_cheap(
        lambda: _bearer_principal(request, context, token, None, _role(request)),
        reads=context.engine,
    )


PrincipalDep = Annotated[Principal, Depends(_principal)]
AdminDep = Annotated[Principal, Depends(require_admin)]
