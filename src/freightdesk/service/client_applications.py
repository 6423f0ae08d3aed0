"""OAuth 2.0 client applications for the app: a Customer Admin lists, creates, rotates, deletes.

The interface manages client applications only under HTTP Basic of a Customer Admin user,
which the app's connection (a client id and secret exchanged for tokens) does not carry. So the
dialog asks for the admin's user name and password and this object holds them, in memory, until
the dialog closes: the app keeps client secrets in the keyring, never a person's password.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from pydantic import ValidationError

from freightdesk.api.errors import (
    ApiError,
    AuthenticationFailed,
    NotFound,
    PermissionDenied,
    RateLimited,
)
from freightdesk.models.auth import (
    ClientApplication,
    ClientApplicationCreate,
    ClientApplicationWithSecret,
)
from freightdesk.service.messages import explain
from freightdesk.service.validation import problems_of

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient
    from freightdesk.service.session import AppSession

# The Local sandbox's demo tenant has this admin (made with the demo data); the dialog offers
# the user name so a first look needs only the password the README gives.
LOCAL_ADMIN_USER = "demo"


def check_credentials(user: str, password: str) -> dict[str, str]:
    """Problems by field (`user`, `password`) before asking the service."""
    problems: dict[str, str] = {}
    if not user.strip():
        problems["user"] = "Enter the user name of a Customer Admin"
    if not password:
        problems["password"] = "Enter the password"
    return problems


def check_name(name: str) -> tuple[ClientApplicationCreate | None, dict[str, str]]:
    """The request for a new application, or the problems by field (`name`)."""
    # The service keeps the name stripped, so a name of spaces would be an application
    # without a name: checked on the stripped text, with the model's own limits.
    stripped = name.strip()
    if not stripped:
        return None, {"name": "Give the application a name (who or what will use it)"}
    try:
        return ClientApplicationCreate.model_validate({"name": stripped}), {}
    except ValidationError as exc:
        return None, problems_of(exc)


def problems_of_error(error: BaseException) -> tuple[dict[str, str], str | None]:
    """An error answer as messages beside the fields (`user`, `password`, `name`) or, when it
    names none, one sentence for the whole dialog."""
    if isinstance(error, AuthenticationFailed):
        return {"password": "The service did not accept this user name and password"}, None
    if isinstance(error, PermissionDenied):
        return {
            "user": "This user is not an administrator (Customer Admin) of your company account"
        }, None
    if isinstance(error, RateLimited):
        wait = error.retry_after
        after = f" for {max(1, round(wait))} s" if wait else " for a moment"
        return {"password": f"Too many failed sign-ins: the service refuses them{after}"}, None
    if isinstance(error, ApiError) and error.field_errors():
        return error.field_errors(), None
    return {}, explain(error)


class ClientApplications:
    """The tenant's client applications under the admin's Basic credentials.

    `in_use` is the client id the app's own connection uses: rotating its secret or deleting
    it cuts the app off, so the dialog says so before doing it. A new secret of that
    application goes to `remember` (the connection's place in the keyring), so the next
    connect uses it without the user typing it in.

    `base_url` is the service's address, or where to read it each time (the session's client:
    the Local sandbox's service can come back on another port while the dialog is open)."""

    def __init__(
        self,
        base_url: str | Callable[[], str],
        *,
        in_use: str = "",
        local: bool = False,
        remember: Callable[[str], None] | None = None,
    ) -> None:
        self._address = base_url if callable(base_url) else lambda: base_url
        self.in_use = in_use
        self.local = local
        self._remember = remember
        self._client: ApiClient | None = None
        self.user = ""

    @classmethod
    def of_session(cls, session: AppSession) -> ClientApplications | None:
        """For the session's service (None while it is not connected)."""
        from freightdesk.service.profiles import ProfileKind

        if session.client is None:
            return None
        # As stored: connecting may have given the profile its client id since (the Local
        # sandbox's first run), and `session.profile` is the one it started from.
        profile = session.profiles.get(session.profile.id)

        def remember(secret: str) -> None:
            session.profiles.save(profile, secret=secret)

        # The client the session moves when the Local sandbox's service moves (move_to), not
        # the session's next one: that may be another profile's service.
        client = session.client
        return cls(
            lambda: client.base_url,
            in_use=profile.client_id,
            local=profile.kind is ProfileKind.LOCAL,
            remember=remember,
        )

    @property
    def base_url(self) -> str:
        """The service's address now."""
        return self._address()

    @property
    def signed_in(self) -> bool:
        return self._client is not None

    async def sign_in(self, user: str, password: str) -> list[ClientApplication]:
        """Check the credentials by listing the applications; kept only if they work."""
        from freightdesk.api.client import ApiClient

        # Made in a worker thread: its HTTP client loads the TLS certificates (tens of ms).
        client = await asyncio.to_thread(ApiClient, self.base_url, admin=(user.strip(), password))
        try:
            found = await client.client_applications.list()
        except BaseException:
            await client.aclose()
            raise
        await self.aclose()
        self._client, self.user = client, user.strip()
        return found

    def _admin(self) -> ApiClient:
        if self._client is None:
            raise PermissionError("sign in as a Customer Admin first")
        if self._client.base_url != self.base_url:
            self._client.move_to(self.base_url)  # the Local sandbox's service moved
        return self._client

    async def list(self) -> list[ClientApplication]:
        return await self._admin().client_applications.list()

    async def get(self, client_id: str) -> ClientApplication:
        """The application as the service has it now (NotFound once deleted elsewhere)."""
        return await self._admin().client_applications.get(client_id)

    async def create(self, request: ClientApplicationCreate) -> ClientApplicationWithSecret:
        """A new application; its secret is in the answer and nowhere else, ever."""
        return await self._admin().client_applications.create(request.name)

    async def rotate(self, client_id: str) -> ClientApplicationWithSecret:
        """A new secret; the old one and every token issued with it stop working at once."""
        rotated = await self._admin().client_applications.new_secret(client_id)
        if client_id == self.in_use and self._remember is not None:
            # The keyring may take a moment (its daemon): not on the loop's thread.
            await asyncio.to_thread(self._remember, rotated.secret)
        return rotated

    @property
    def remembers(self) -> bool:
        """Whether a new secret of the app's own application is kept for its connection."""
        return self._remember is not None

    async def delete(self, client_id: str) -> None:
        # Already gone (deleted elsewhere, or a retried delete): the wish is met.
        with contextlib.suppress(NotFound):
            await self._admin().client_applications.delete(client_id)

    async def aclose(self) -> None:
        """Forget the credentials and close the connection."""
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()
