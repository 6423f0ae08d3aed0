"""The app's session with one connection profile: client, cache, coordinators, connectivity.

The UI holds one `AppSession`. Connecting to the Local sandbox starts the local service as a
child process (with demo data on first run) and needs no dialog; connecting to a remote profile
uses its client id and the secret from the keyring. Either reuses the access token the last run
kept beside the secret (`KeptTokens`) while it is valid.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
import re
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from freightdesk.api.errors import ConnectionFailed, FreightDeskError
from freightdesk.service import carrier_names
from freightdesk.service.alerts import AlertsInbox
from freightdesk.service.cache import Cache
from freightdesk.service.connection import ConnectionState, ConnectionStatus
from freightdesk.service.coordinator import Coordinator, CoordinatorStatus
from freightdesk.service.demo import DemoProgress
from freightdesk.service.first_run import DESKTOP_CLIENT_NAME, rotate_command
from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import Profile, ProfileKind, ProfileStore
from freightdesk.service.secrets import LOCAL_SECRET_FILE, KeptTokens
from freightdesk.service.session_areas import AreaServices
from freightdesk.service.shipments import ShipmentDetail, ShipmentsService
from freightdesk.service.summary_rows import SUMMARIES

# The API client (httpx and every area's models), the local service's supervisor and the
# other areas' services are imported when first needed, not when the app starts: the window
# shows the cached shipment list before any of them is loaded.
if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient
    from freightdesk.service.local_service import LocalService, ServiceState

log = logging.getLogger(__name__)

_CREDENTIALS = re.compile(r"client id (\S+), client secret (\S+)")
T = TypeVar("T")
# A fetch still waiting after this long is said, in the status bar, to be waiting for a
# service that does not answer (a hung or stopped process): the client itself gives up only
# after its timeout (30 s), and until then the bar would say "Online".
NO_ANSWER_SECONDS = 10.0
NO_ANSWER_RECHECK = 5.0  # how often the seconds waited are updated while it lasts
NAMING_WAIT = 2.0  # seconds a connect waits for the carriers' names (`_name_carriers`)
# The carriers' names are asked again when a list shows a code they do not name, or the demo
# is ready, at most once in this many seconds (`_name_again`).
NAMING_AGAIN_SECONDS = 60.0


def _explain(error: BaseException) -> str:
    from freightdesk.service.messages import explain

    return explain(error)


class NotConnected(FreightDeskError):
    """An operation was asked for before the session connected."""


class AppSession(AreaServices):
    def __init__(
        self,
        paths: AppPaths,
        profiles: ProfileStore,
        *,
        local_service_args: tuple[str, ...] = (),
        simulate: bool = True,
        threads_idle: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        """`threads_idle`: returns once the work handed to worker threads so far has ended
        (the app's loop's threads); `close` closes the cache only then."""
        self.paths = paths
        self._threads_idle = threads_idle
        self.profiles = profiles
        # Without a keyring, the Local sandbox's secret is shared by this home's windows there.
        profiles.keep_local_secret_in(paths.local_service_dir / LOCAL_SECRET_FILE)
        self.local_service_args = local_service_args
        self.simulate = simulate
        self.profile: Profile = profiles.active
        self.client: ApiClient | None = None
        self.cache: Cache | None = None
        # Why the cache is kept in memory only (its file cannot be opened), in words.
        self.cache_problem: str | None = None
        self._cache_profile_id = self.profile.id
        self.local_service: LocalService | None = None
        # The Local sandbox's start begun before `connect` (`start_local_service`).
        self._local_start: asyncio.Task[str] | None = None
        # The carriers' names asked of the service after a connect (`carrier_names`).
        self._naming: asyncio.Task[None] | None = None
        self.naming_again_seconds = NAMING_AGAIN_SECONDS
        self._named_at = 0.0  # the loop's time the names were last asked
        self._naming_again: asyncio.TimerHandle | None = None
        self._stop_naming: Callable[[], None] = lambda: None  # stops `_follow_unnamed`
        # Each watched coordinator with what its fetch does, in the status bar's words.
        self._coordinators: dict[Coordinator[Any, Any], str] = {}
        self.no_answer_seconds = NO_ANSWER_SECONDS
        self._no_answer_check: asyncio.TimerHandle | None = None
        self._status = ConnectionStatus(ConnectionState.CONNECTING, self.profile.name)
        self._status_listeners: list[Callable[[ConnectionStatus], None]] = []
        self._connected_listeners: list[Callable[[], None]] = []
        self._unsubscribers: list[Callable[[], None]] = []
        self.shipments: ShipmentsService | None = None
        self.alerts: AlertsInbox | None = None
        # The Local sandbox's demo data as it is being written (first run).
        self.demo = DemoProgress(self.require_client)
        AreaServices.__init__(self)

    # --- status ----------------------------------------------------------------------------

    @property
    def status(self) -> ConnectionStatus:
        return self._status

    def listen_status(self, listener: Callable[[ConnectionStatus], None]) -> Callable[[], None]:
        self._status_listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._status_listeners:
                self._status_listeners.remove(listener)

        return unsubscribe

    def _set_status(self, **changes: Any) -> None:
        self._status = replace(self._status, **changes)
        for listener in list(self._status_listeners):
            try:
                listener(self._status)
            except Exception:
                log.exception("a status listener failed")

    def watch(self, coordinator: Coordinator[Any, Any], doing: str) -> None:
        """Let a coordinator's fetches drive the connection status; `doing`: what a fetch of
        it does, said beside the activity bar while it runs ("Updating shipments")."""
        self._coordinators[coordinator] = doing
        self._unsubscribers.append(coordinator.listen_status(self._coordinator_status))

    def _coordinator_status(self, status: CoordinatorStatus) -> None:
        fetching = [doing for c, doing in self._coordinators.items() if c.status.fetching]
        busy = len(fetching)
        # The last words stay once the fetches end: the bar lingers a moment with them.
        doing = fetching[0] if fetching else self._status.doing
        if status.fetching or (status.last_error is None and status.last_success is None):
            # Still fetching, or data taken from the cache: says nothing about the service.
            self._set_status(busy=busy, doing=doing)
            if status.fetching and self._no_answer_check is None:
                self._check_answering()
            return
        if status.last_error is not None and self._local_restarting():
            # The local service's own words (stopped, restarting) say more than "cannot be
            # reached, check the network", which a poll meanwhile would put in their place.
            self._set_status(busy=busy, doing=doing)
            return
        if status.last_error is None:
            self._set_status(
                state=ConnectionState.ONLINE,
                message="",
                last_success=status.last_success,
                busy=busy,
                doing=doing,
            )
        elif isinstance(status.last_error, ConnectionFailed):
            self._set_status(
                state=ConnectionState.OFFLINE,
                message=_explain(status.last_error),
                busy=busy,
                doing=doing,
            )
        else:
            self._set_status(
                state=ConnectionState.DEGRADED,
                message=_explain(status.last_error),
                busy=busy,
                doing=doing,
            )

    def _check_answering(self) -> None:
        """Say the service does not answer once a fetch has waited `no_answer_seconds`, and
        check again while fetches are under way (the answer, or the client's timeout, then
        says how the service is)."""
        self._no_answer_check = None
        since = [
            started for c in self._coordinators if (started := c.status.fetching_since) is not None
        ]
        if not since:
            return
        waited = time.monotonic() - min(since)
        if waited >= self.no_answer_seconds:
            self._set_status(
                state=ConnectionState.DEGRADED,
                message=(
                    f"The freight service has not answered for {waited:.0f} s; still waiting."
                ),
            )
            delay = NO_ANSWER_RECHECK
        else:
            delay = self.no_answer_seconds - waited
        self._no_answer_check = asyncio.get_running_loop().call_later(delay, self._check_answering)

    def _local_restarting(self) -> bool:
        from freightdesk.service.local_service import ServiceState

        service = self.local_service
        return service is not None and service.state in (
            ServiceState.RESTARTING,
            ServiceState.STARTING,
        )

    # --- connecting ------------------------------------------------------------------------

    def require_client(self) -> ApiClient:
        if self.client is None:
            raise NotConnected("not connected to a freight service yet")
        return self.client

    def open_cache(self, profile: Profile) -> Cache:
        """The profile's cache and shipment list, ready before connecting so the window opens
        at once with the last known data. The other areas' services are made when first
        asked for (importing them loads the API client and every area's models)."""
        if self.cache is None:
            self.cache = self._cache_for(profile)
            self._cache_profile_id = profile.id
            self.shipments = ShipmentsService(
                self.require_client, self.cache, interval=profile.poll_interval
            )
            self.watch(self.shipments.coordinator, "Updating shipments")
            self.alerts = AlertsInbox(self.cache)
            carrier_names.load_cached(self.cache)
        return self.cache

    def _cache_for(self, profile: Profile) -> Cache:
        """The profile's cache file; when it cannot be opened (a read-only or full disk, a
        file where its folder should be), a cache in memory so the app still runs, and
        `cache_problem` says so in words."""
        path = self.paths.cache_file(profile.id)
        try:
            cache = Cache(path)
        except (sqlite3.Error, OSError) as exc:
            log.warning("the cache %s cannot be opened (%s); keeping it in memory", path, exc)
            folder = path.parent
            writable = folder.is_dir() and os.access(folder, os.W_OK)
            reason = str(exc) if writable else "the folder cannot be written to"
            self.cache_problem = (
                f"FreightDesk cannot keep its saved data in {folder} ({reason}). It works, "
                "but lists are fetched anew at each start and cannot be shown offline."
            )
            return Cache(Path(":memory:"))
        self.cache_problem = None
        return cache

    def shipments_changed(self) -> None:
        """A write of another area changed shipments: the list syncs soon (coalesced)."""
        if self.shipments is not None:
            self.shipments.changed()

    def open_shipment(self, shipment_id: str) -> ShipmentDetail:
        """One shipment's history, polled while someone listens to its coordinator."""
        return ShipmentDetail(self.require_client, shipment_id)

    def listen_connected(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Told after every successful connect (also after switching profiles)."""
        self._connected_listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._connected_listeners:
                self._connected_listeners.remove(listener)

        return unsubscribe

    def catching_up(self, build: Callable[[], T]) -> T:
        """Run `build` (making something that listens for connects, such as a pane made on
        first show). When the session is connected already, the listeners `build` added are
        told at once, as they would have been had they been there when it connected."""
        before = set(map(id, self._connected_listeners))
        built = build()
        if self.client is not None:
            for listener in [f for f in self._connected_listeners if id(f) not in before]:
                try:
                    listener()
                except Exception:
                    log.exception("a connected listener failed")
        return built

    async def connect(self) -> ApiClient:
        """Connect with the active profile (starting the Local sandbox when that is it)."""
        profile = self.profiles.active
        self.profile = profile
        began = time.monotonic()
        self.open_cache(profile)
        self._set_status(
            state=ConnectionState.CONNECTING,
            profile_name=profile.name,
            # What the start waits for, as the local service's start begun before says it.
            message=self._status.message
            if self._local_start is not None
            else f"Connecting to {profile.name}",
            last_success=self.cache.saved_at(SUMMARIES) if self.cache else None,
        )
        try:
            if profile.kind is ProfileKind.LOCAL:
                client = await self._connect_local(profile)
            else:
                client = await self._connect_remote(profile)
        except Exception as exc:
            self.demo.forget()  # nothing is being prepared that the app can follow
            self._set_status(state=ConnectionState.OFFLINE, message=_explain(exc))
            raise
        self.client = client
        self._set_status(state=ConnectionState.ONLINE, message="")
        log.info("connected to %s in %.1f s", profile.name, time.monotonic() - began)
        if profile.kind is ProfileKind.LOCAL:
            self.demo.follow(self.shipments.coordinator if self.shipments else None)
        # Asked before the panes are told of the connect, so that they show the carriers by
        # name from their first paint; a slow answer is not waited for past NAMING_WAIT (the
        # lists are named again when it comes).
        self._name_now()
        assert self._naming is not None
        await asyncio.wait([self._naming], timeout=NAMING_WAIT)
        self._follow_unnamed()
        for listener in list(self._connected_listeners):
            try:
                listener()
            except Exception:
                log.exception("a connected listener failed")
        return client

    def _follow_unnamed(self) -> None:
        """Ask for the names again when a list shows a carrier they do not name, and when the
        demo's preparation ends: the names asked at a first start's connect come before the
        demo's carriers (its Carrier column read 'CDRF' until a restart)."""
        loop = asyncio.get_running_loop()

        def unnamed() -> None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: the app ends
                loop.call_soon_threadsafe(self._name_again)

        carrier_names.CARRIER_NAMES.when_unnamed(unnamed)
        unlisten = self.demo.listen(self._demo_told)

        def stop() -> None:
            carrier_names.CARRIER_NAMES.when_unnamed(None)
            unlisten()

        self._stop_naming = stop

    def _demo_told(self, message: str | None) -> None:
        if message is None:  # prepared (or no longer followed): its carriers are all known
            self._name_now()

    def _name_again(self) -> None:
        """The names asked again, a minute after they were last asked at the soonest."""
        if self.client is None or self._naming_again is not None:
            return
        loop = asyncio.get_running_loop()
        wait = max(0.0, self._named_at + self.naming_again_seconds - loop.time())
        self._naming_again = loop.call_later(wait, self._name_now)

    def _name_now(self) -> None:
        if self._naming_again is not None:
            self._naming_again.cancel()
            self._naming_again = None
        if self.client is None:
            return
        loop = asyncio.get_running_loop()
        if self._naming is not None and not self._naming.done():
            # Not two at once: again a while after this one, whose answer may have it.
            self._naming_again = loop.call_later(self.naming_again_seconds, self._name_now)
            return
        self._named_at = loop.time()
        self._naming = asyncio.ensure_future(self._name_carriers(self.client))

    async def _name_carriers(self, client: ApiClient) -> None:
        """The carriers' names as the service gives them; without them the app shows the
        codes, as it did (and the last known names until they come)."""
        try:
            await carrier_names.refresh(client, self.cache)
        except FreightDeskError as exc:
            log.info("the service named no carriers (%s); the last known names stay", exc)

    def _kept_tokens(self, profile: Profile, url: str) -> KeptTokens:
        """The token kept from the last run with this profile at `url` (and the next's): the
        service gives a client only a few new tokens a minute, and a start that asked for one
        every time could wait out a refusal before showing anything."""
        return KeptTokens(
            self.profiles.secrets, profile.id, url, profile.client_id, profile.secret_key
        )

    async def _connect_remote(self, profile: Profile) -> ApiClient:
        secret = self.profiles.secret(profile)
        if not secret:
            raise AuthenticationFailedWithoutSecret(profile.name)
        client = await _new_client(
            profile.base_url,
            client_id=profile.client_id,
            client_secret=secret,
            credentials_in="body" if profile.credentials_in == "body" else "basic",
            token_keeper=self._kept_tokens(profile, profile.base_url),
        )
        try:
            assert client.tokens is not None
            # A kept token is not tried here: a service that refuses it is sent the secret on
            # the first call, which is then made again (`ApiClient.request`), unseen.
            await client.tokens.get()
        except BaseException:
            await client.aclose()
            raise
        return client

    async def start_local_service(self) -> None:
        """Begin starting the Local sandbox's service now when it is the active profile, so
        that it starts (1 to 2 s, most of a first run's wait for its demo) while the app is
        still loading what connecting needs and asking the keyring; `connect` then waits for
        this start instead of beginning one. Returns once the start is under way."""
        profile = self.profiles.active
        if profile.kind is not ProfileKind.LOCAL or self.local_service is not None:
            return
        self._expect_first_run(profile)
        # The supervisor's module loads httpx: in a worker thread, off the GUI's loop.
        await asyncio.to_thread(importlib.import_module, "freightdesk.service.local_service")
        if self.local_service is None:  # not begun meanwhile
            lost = self.profiles.lost_local_secret(profile)  # as `first_run.begin_later`
            self._local_start = asyncio.ensure_future(self._new_local_service(lost).start())

    def _expect_first_run(self, profile: Profile) -> None:
        """A Local sandbox this home never connected to (no client id kept) starts on its
        empty data directory, where the service writes the demo: say so from the start,
        not once the service answers (1 to 2 s, longer on a busy machine). Once connected,
        the service's own progress replaces this, or ends it when there is no demo to make."""
        if not profile.client_id and "--database" not in self.local_service_args:
            self.demo.expect()

    def _new_local_service(self, rotate: bool) -> LocalService:
        """`rotate`: the service gives the app's client application a new secret as it starts
        (`ProfileStore.lost_local_secret`), instead of a `client rotate` run once it answers:
        a second start of most of the service, which doubled the wait (42 s at load 13)."""
        from freightdesk.service.local_service import LocalService
        from freightdesk.service.messages import follow_local_service

        service = LocalService(
            self.paths.local_service_dir,
            demo=True,
            simulate=self.simulate,
            extra_args=self.local_service_args,
            rotate_client=DESKTOP_CLIENT_NAME if rotate else None,
        )
        service.listen(self._local_service_state)
        follow_local_service(service)  # a form refused meanwhile says it restarts
        self.local_service = service
        return service

    async def _connect_local(self, profile: Profile) -> ApiClient:
        from freightdesk.api.errors import AuthenticationFailed

        starting, self._local_start = self._local_start, None
        if starting is not None and self.local_service is not None:
            service = self.local_service
            url = await starting
        else:
            self._expect_first_run(profile)
            service = self._new_local_service(self.profiles.lost_local_secret(profile))
            url = await service.start()
        if service.demo_credentials is not None:
            self.demo.expect()  # a first run: the demo is being written
            profile = self._remember_local(
                profile, service.demo_credentials.client_id, service.demo_credentials.client_secret
            )
        elif (rotated := service.rotated_credentials) is not None:
            profile = self._remember_local(profile, rotated.client_id, rotated.client_secret)
        secret = self.profiles.secret(profile) if profile.client_id else None
        for attempt in range(2):
            if not secret or attempt == 1:
                client_id, secret = await self._rotate_local_secret()
                profile = self._remember_local(profile, client_id, secret)
            client = await _new_client(
                url,
                client_id=profile.client_id,
                client_secret=secret,
                token_keeper=self._kept_tokens(profile, url),
            )
            try:
                assert client.tokens is not None
                await client.tokens.get()
                if client.tokens.reused:
                    # Tried once here, where a secret this service no longer knows (its
                    # database replaced) is still replaced below: refused, the token gives
                    # way to a new one, and a refused secret raises AuthenticationFailed.
                    await client.tenant.caller()
                return client
            except AuthenticationFailed:
                # The stored secret belongs to an older database: get a fresh one.
                await client.aclose()
                continue
            except BaseException:
                await client.aclose()
                raise
        raise NotConnected("the local sandbox did not accept any credentials")

    def _remember_local(self, profile: Profile, client_id: str, secret: str) -> Profile:
        updated = replace(profile, client_id=client_id)
        return self.profiles.save(updated, secret=secret)

    async def _rotate_local_secret(self) -> tuple[str, str]:
        # In the bundle too (`-m` there is an unknown command: the app stayed offline).
        process = await asyncio.create_subprocess_exec(
            *rotate_command(self.paths.local_service_dir, self._database_args()),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await process.communicate()
        match = _CREDENTIALS.search(out.decode())
        if process.returncode != 0 or match is None:
            raise NotConnected(
                "the local sandbox has no client application for the app: "
                + (err.decode().strip().splitlines() or ["no output"])[-1]
            )
        return match.group(1), match.group(2)

    def _database_args(self) -> list[str]:
        args = list(self.local_service_args)
        if "--database" in args:
            index = args.index("--database")
            return args[index : index + 2]
        return []

    def _local_service_state(self, state: ServiceState, message: str) -> None:
        from freightdesk.service.local_service import ServiceState

        if state is ServiceState.RESTARTING or state is ServiceState.FAILED:
            self._set_status(state=ConnectionState.OFFLINE, message=message)
        elif state is ServiceState.STARTING:
            self._set_status(state=ConnectionState.CONNECTING, message=message)
        elif state is ServiceState.RUNNING and self.client is not None:
            url = self.local_service.url if self.local_service is not None else None
            if url is not None and url != self.client.base_url:
                # Back on another port (its own was taken while it was down), or another
                # window's service used in its place: the client follows, its token with it.
                log.info("the local service is now at %s", url)
                self.client.move_to(url)
            # Back after a restart: the lists fetch now, not when their backoff ends (up to
            # minutes after a few failed polls).
            for coordinator in self._coordinators:
                coordinator.poke()
        elif state is ServiceState.RUNNING and self._status.state is ConnectionState.CONNECTING:
            self._set_status(message="Signing in to the local service")

    async def switch(self, profile_id: str) -> ApiClient:
        """Close this connection and connect with another profile."""
        await self.close()
        self.profiles.activate(profile_id)
        return await self.connect()

    async def close(self) -> None:
        self._stop_naming()
        self._stop_naming = lambda: None
        if self._naming_again is not None:
            self._naming_again.cancel()
            self._naming_again = None
        naming, self._naming = self._naming, None
        if naming is not None:
            naming.cancel()
            await asyncio.gather(naming, return_exceptions=True)
        if self._no_answer_check is not None:
            self._no_answer_check.cancel()
            self._no_answer_check = None
        await self.demo.stop()
        if self.alerts is not None:
            await self.alerts.aclose()
        for unsubscribe in self._unsubscribers:
            unsubscribe()
        self._unsubscribers.clear()
        for coordinator in self._coordinators:
            await coordinator.aclose()
        self._coordinators.clear()
        # Only the services that were made (reading the properties would make them).
        for owner in (
            self._uploads,
            self._documents,
            self._stop_locations,
            self._webhooks,
            self._account_groups,
            self._carrier_profiles,
            self._rating,
            self._bookings,
            self._packages,
            self._schedules,
            self._capacity,
            self._vehicles,
            self._rail,
            self._carrier_push,
        ):
            if owner is not None:
                await owner.aclose()
        self._forget_areas()
        if self.client is not None:
            await self.client.aclose()
            self.client = None
        starting, self._local_start = self._local_start, None
        if starting is not None:  # begun, never connected to: its outcome is not wanted
            starting.cancel()
            await asyncio.gather(starting, return_exceptions=True)
        # A save handed to a thread by a task cancelled meanwhile still runs (TriageFacts
        # shields its keep): the cache closes after it, waited for while the service stops.
        await asyncio.gather(
            self.local_service.stop() if self.local_service is not None else asyncio.sleep(0),
            self._threads_idle() if self._threads_idle is not None else asyncio.sleep(0),
        )
        self.local_service = None
        if self.cache is not None:
            self.cache.close()
            self.cache = None
        self.shipments = self.alerts = None


async def _new_client(base_url: str, **options: Any) -> ApiClient:
    """A client, made in a worker thread: making its HTTP client loads the certificates for
    TLS, 30 to 130 ms during which the window would otherwise stand still."""
    from freightdesk.api.client import ApiClient

    return await asyncio.to_thread(ApiClient, base_url, **options)


class AuthenticationFailedWithoutSecret(FreightDeskError):
    """A remote profile whose secret is not in the keyring (for example on a new machine)."""

    def __init__(self, profile_name: str) -> None:
        super().__init__(
            f"The secret of the connection {profile_name!r} is not stored on this computer; "
            "enter it in Connections."
        )


async def probe(profile: Profile, secret: str) -> str:
    """Try a profile before saving it: get a token and read what the service offers."""
    client = await _new_client(
        profile.base_url,
        client_id=profile.client_id,
        client_secret=secret,
        credentials_in="body" if profile.credentials_in == "body" else "basic",
    )
    async with client:
        assert client.tokens is not None
        await client.tokens.get()
        extensions = await client.extensions()
    if extensions:
        return "Connected. This is a FreightDesk local service with shipment browsing."
    return "Connected. The service accepted the client id and secret."
