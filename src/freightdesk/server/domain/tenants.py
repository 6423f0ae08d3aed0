"""Tenants, admin users and client applications: creation and credential checks."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from dataclasses import dataclass

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from freightdesk.server.errors import ApiError, conflict
from freightdesk.server.tables.tenancy import AccessToken, ClientApp, Tenant, User

TENANT_KINDS = ("SHIPPER", "CARRIER")
MAX_CLIENT_APPS = 20
_PBKDF2_ROUNDS = 120_000


def hash_password(password: str, *, salt: bytes | None = None) -> str:
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, _PBKDF2_ROUNDS)
    return f"pbkdf2_sha256${_PBKDF2_ROUNDS}${salt.hex()}${digest.hex()}"


def verify_password(password: str, stored: str) -> bool:
    try:
        _scheme, rounds, salt_hex, digest_hex = stored.split("$")
    except ValueError:
        return False
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), bytes.fromhex(salt_hex), int(rounds))
    return hmac.compare_digest(digest.hex(), digest_hex)


def hash_secret(secret: str) -> str:
    """Client secrets are long and random, so one round of SHA-256 is enough to store them."""
    return hashlib.sha256(secret.encode()).hexdigest()


@dataclass(frozen=True)
class TenantResult:
    tenant: Tenant
    created: bool


def ensure_tenant(
    session: Session, name: str, admin_user: str, admin_password: str, kind: str = "SHIPPER"
) -> TenantResult:
    """Create a tenant with a Customer Admin; running it again for the same name changes nothing."""
    if kind not in TENANT_KINDS:
        raise ValueError(f"tenant kind must be one of {', '.join(TENANT_KINDS)}")
    if not name.strip():
        raise ValueError("tenant name must not be blank")
    if not admin_user.strip() or not admin_password:
        raise ValueError("the admin needs a user name and a password")
    existing = session.scalar(select(Tenant).where(Tenant.name == name))
    if existing is not None:
        return TenantResult(existing, created=False)
    taken = session.scalar(select(User).where(User.username == admin_user))
    if taken is not None:
        raise ValueError(f"user {admin_user!r} already belongs to another tenant")
    tenant = Tenant(uuid=str(uuid.uuid4()), name=name, kind=kind, features={})
    session.add(tenant)
    session.flush()
    session.add(
        User(
            tenant_id=tenant.id,
            username=admin_user,
            password_hash=hash_password(admin_password),
            role="CUSTOMER_ADMIN",
        )
    )
    session.flush()
    return TenantResult(tenant, created=True)


def create_client_app(session: Session, tenant_id: int, name: str) -> tuple[ClientApp, str]:
    """Register a client application; the secret is returned once and stored hashed."""
    count = session.scalar(
        select(func.count()).select_from(ClientApp).where(ClientApp.tenant_id == tenant_id)
    )
    if (count or 0) >= MAX_CLIENT_APPS:
        raise conflict(
            f"A tenant can have at most {MAX_CLIENT_APPS} client applications; delete one first"
        )
    secret = secrets.token_urlsafe(32)
    app = ClientApp(
        id=secrets.token_hex(12), tenant_id=tenant_id, name=name, secret_hash=hash_secret(secret)
    )
    session.add(app)
    session.flush()
    return app, secret


def rotate_secret(session: Session, app: ClientApp) -> str:
    """A new secret for the application; the tokens issued with the old one are revoked (a
    rotation is what an operator does when a secret leaked). A service running in another
    process stops accepting them once its token cache re-reads them (`TokenStore`)."""
    secret = secrets.token_urlsafe(32)
    app.secret_hash = hash_secret(secret)
    session.execute(delete(AccessToken).where(AccessToken.client_id == app.id))
    session.flush()
    return secret


def check_client(session: Session, client_id: str, secret: str) -> ClientApp:
    app = session.get(ClientApp, client_id)
    if app is None or not hmac.compare_digest(app.secret_hash, hash_secret(secret)):
        raise ApiError(
            401,
            "The client id or secret is not valid",
            headers={"WWW-Authenticate": 'Basic realm="freightdesk"'},
        )
    return app


def set_feature(session: Session, tenant: Tenant, feature: str, enabled: bool) -> None:
    features = dict(tenant.features or {})
    features[feature] = enabled
    tenant.features = features
    session.flush()
