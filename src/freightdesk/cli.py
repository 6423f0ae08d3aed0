"""The `freightdesk` command: the desktop app, the local service and its administration."""

from __future__ import annotations

import argparse
import gc
import logging
import logging.handlers
import os
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from freightdesk.server.context import ServiceContext
    from freightdesk.server.migrations import Migration
    from freightdesk.server.tables.tenancy import Tenant
    from freightdesk.server.webhooks.targets import IPNetwork


def _parser() -> argparse.ArgumentParser:
    from freightdesk import __version__

    parser = argparse.ArgumentParser(
        prog="freightdesk",
        description="FreightDesk: freight visibility for dispatchers. Without a command, "
        "opens the desktop app.",
    )
    parser.add_argument("--version", action="version", version=f"freightdesk {__version__}")
    parser.add_argument(
        "--self-check",
        action="store_true",
        help="start offscreen with a fresh local service and demo data, draw a map and a "
        "PDF preview, export to Excel through the export's own process, connect a second "
        "window, and exit (0 when all worked, else 1 with the reason)",
    )
    commands = parser.add_subparsers(dest="command")

    serve = commands.add_parser("serve", help="run the local service")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=None, help="default 8044; 0 picks a free port")
    serve.add_argument("--database", help="database URL (default: SQLite in the data directory)")
    serve.add_argument("--data-dir", help="where the database, files and logs live")
    serve.add_argument("--demo", action="store_true", help="fill an empty database with demo data")
    serve.add_argument("--seed", type=int, default=7, help="seed of the demo data (default 7)")
    serve.add_argument("--simulate", action="store_true", help="keep the demo data moving")
    serve.add_argument(
        "--speed",
        type=_positive,
        default=1.0,
        help="simulator time compression (60: an hour a minute)",
    )
    serve.add_argument("--log-level", default="info", choices=["debug", "info", "warning"])
    serve.add_argument(
        "--public-url",
        help="the address users and webhook receivers reach the service at, the same for "
        "every instance (share links); default $FREIGHTDESK_PUBLIC_URL",
    )
    serve.add_argument(
        "--allow-private-webhook-targets",
        action="store_true",
        help="let webhooks go to loopback, private, link-local and multicast addresses "
        "(always allowed when the service listens on loopback only)",
    )
    serve.add_argument(
        "--allowed-webhook-networks",
        type=_networks,
        default=(),
        metavar="CIDR[,CIDR]",
        help="private or local networks webhooks may go to, e.g. 10.20.0.0/16,fd00:1::/64",
    )
    # The app's end, seen by the service: see freightdesk.lifetime.
    serve.add_argument("--parent-pipe", type=int, help=argparse.SUPPRESS)
    serve.add_argument(
        "--rotate-client",
        metavar="NAME",
        help="give the demo tenant's client application NAME a new secret as the service "
        "starts and print it (what `client rotate --demo NAME` does, without a second process)",
    )

    tenant = commands.add_parser("tenant", help="administer tenants")
    tenant_commands = tenant.add_subparsers(dest="tenant_command", required=True)
    add = tenant_commands.add_parser("add", help="create a tenant with a Customer Admin user")
    add.add_argument("name")
    add.add_argument("--admin", required=True, metavar="USER:PASSWORD")
    add.add_argument("--kind", default="SHIPPER", choices=["SHIPPER", "CARRIER"])
    _database_options(add)
    feature = tenant_commands.add_parser("feature", help="switch a tenant's feature on or off")
    feature.add_argument("name")
    feature.add_argument("feature", help="for example rateRequestCancellation, capacityCoop")
    feature.add_argument("state", choices=["on", "off"])
    _database_options(feature)

    client = commands.add_parser("client", help="administer client applications")
    client_commands = client.add_subparsers(dest="client_command", required=True)
    client_add = client_commands.add_parser("add", help="register a client application")
    client_add.add_argument("tenant")
    client_add.add_argument("name")
    _database_options(client_add)
    rotate = client_commands.add_parser(
        "rotate", help="give a client application a new secret (registering it if needed)"
    )
    rotate.add_argument("tenant", help="tenant name, or --demo for the demo tenant", nargs="?")
    rotate.add_argument("name")
    rotate.add_argument("--demo", action="store_true", help="the demo tenant")
    _database_options(rotate)

    carrier = commands.add_parser("carrier", help="configure the simulated carriers of a tenant")
    carrier_commands = carrier.add_subparsers(dest="carrier_command", required=True)
    carrier_set = carrier_commands.add_parser("set", help="how a carrier answers (by SCAC)")
    carrier_set.add_argument("tenant")
    carrier_set.add_argument("scac")
    carrier_set.add_argument(
        "--behaviour", choices=["ACCEPT", "DECLINE", "REVIEW", "SLOW"], help="answer to bookings"
    )
    carrier_set.add_argument("--response-delay", type=float, metavar="SECONDS")
    carrier_set.add_argument("--quote-delay", type=float, metavar="SECONDS")
    carrier_set.add_argument("--name")
    carrier_set.add_argument("--account-group", action="append", metavar="CODE", default=None)
    _database_options(carrier_set)
    carrier_reset = carrier_commands.add_parser("reset", help="back to the carrier's defaults")
    carrier_reset.add_argument("tenant")
    carrier_reset.add_argument("scac")
    _database_options(carrier_reset)
    carrier_list = carrier_commands.add_parser("list", help="the tenant's carriers")
    carrier_list.add_argument("tenant")
    _database_options(carrier_list)

    yard = commands.add_parser("yard", help="administer a tenant's yard sites")
    site = yard.add_subparsers(dest="yard_command", required=True).add_parser("site")
    site_commands = site.add_subparsers(dest="site_command", required=True)
    site_add = site_commands.add_parser("add", help="add a site (dock doors, opening hours)")
    site_add.add_argument("tenant")
    site_add.add_argument("code")
    site_add.add_argument("name")
    site_add.add_argument("--time-zone", required=True, help="IANA, e.g. America/Chicago")
    site_add.add_argument("--doors", type=int, required=True, help="how many dock doors")
    site_add.add_argument("--slot-minutes", type=int, default=60)
    site_add.add_argument("--hours", required=True, help='e.g. "MON-FRI 06:00-22:00; SAT ..."')
    site_list = site_commands.add_parser("list", help="the tenant's sites")
    site_remove = site_commands.add_parser("remove", help="remove a site and its appointments")
    site_remove.add_argument("tenant")
    site_remove.add_argument("code")
    site_list.add_argument("tenant")
    for each in (site_add, site_list, site_remove):
        _database_options(each)
    return parser


def _positive(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def _networks(text: str) -> tuple[IPNetwork, ...]:
    from freightdesk.server.webhooks.targets import parse_networks

    try:
        return parse_networks(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _database_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--database", help="database URL (default: SQLite in the data directory)")
    parser.add_argument("--data-dir", help="the service's data directory")


def main(argv: Sequence[str] | None = None) -> int:
    if not (sys.argv[1:] if argv is None else argv):
        return _app()  # the desktop app: its start is measured, so no parser is built
    args = _parser().parse_args(argv)
    if args.self_check:
        from freightdesk.ui.self_check import run_self_check

        return run_self_check()
    if args.command == "serve":
        return _serve(args)
    if args.command == "tenant":
        return _tenant(args)
    if args.command == "client":
        return _client(args)
    if args.command == "carrier":
        return _carrier(args)
    if args.command == "yard":
        return _yard(args)
    return _app()


def _app() -> int:
    try:
        from freightdesk.ui.launch import end_process, run
    except ImportError as exc:  # the desktop part is not installed or not built yet
        print(f"freightdesk: the desktop app cannot start: {exc}", file=sys.stderr)
        return 1
    end_process(run())


def configure_service_logging(log_dir: Path, level: str) -> None:
    log_dir.mkdir(parents=True, exist_ok=True)
    formatter = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    file_handler = logging.handlers.RotatingFileHandler(
        log_dir / "service.log", maxBytes=10 * 1024 * 1024, backupCount=5, encoding="utf-8"
    )
    file_handler.setFormatter(formatter)
    console = logging.StreamHandler(sys.stderr)
    console.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers[:] = [file_handler, console]
    root.setLevel(level.upper())


# Seconds after the service listens at which the collector is tuned (see _serve).
COLLECTOR_SETTLE_SECONDS = 2.0


def _serve(args: argparse.Namespace) -> int:
    # Start-up builds hundreds of thousands of objects that live as long as the service
    # (models, tables, routes): collecting them over and over costs about 15% of the start.
    # One collection before freezing them (_settle_collector) is enough.
    gc.disable()
    # What the service writes (database, logs, documents, its lock) is its user's alone.
    os.umask(0o077)
    from freightdesk import lifetime

    if args.parent_pipe is not None:
        # From the first moment, not once the server's modules are loaded (seconds on a busy
        # machine): an app killed as it began its service (a later start's, just after its
        # first paint) would leave the service loading them, then stopping, for that long.
        lifetime.watch_parent(args.parent_pipe)
    import socket

    import uvicorn

    from freightdesk.server.app import build_context, create_app
    from freightdesk.server.connections import connection_protocol
    from freightdesk.server.settings import DEFAULT_PORT, ServerSettings, note_listening

    try:
        settings = ServerSettings.from_options(
            database_url=args.database,
            data_dir=args.data_dir,
            host=args.host,
            allow_private_webhook_targets=args.allow_private_webhook_targets,
            allowed_webhook_networks=args.allowed_webhook_networks,
            public_url=args.public_url,
        )
    except ValueError as exc:  # a public URL that is not one
        print(f"freightdesk: {exc}", file=sys.stderr)
        return 2
    configure_service_logging(settings.log_dir, args.log_level)
    try:
        lock = lifetime.ServiceLock.take(settings.data_dir)  # one service per data directory
    except lifetime.DataDirInUse as exc:
        print(f"freightdesk: {exc}", file=sys.stderr)
        return 2

    def say_upgrading(migration: Migration, done: int | None) -> None:
        # The line for the app that started this service, the note for another window's.
        lock.note_upgrading(lifetime.Upgrade(migration.version, done))
        what = migration.description if done is None else f"{done}%"
        print(UPGRADING_LINE.format(migration.version, what), flush=True)

    try:
        context = build_context(settings, say_upgrading)
    except Exception as exc:  # the message matters more than the type here
        # Its first line: a database error's next ones are the statement and a link.
        lock.fail(f"cannot open the database: {(str(exc) or repr(exc)).splitlines()[0]}")
        print(
            f"freightdesk: cannot open the database {settings.database_url}: {exc}", file=sys.stderr
        )
        return 2
    if args.demo:
        from freightdesk.server.demo.progress import PREPARE_SERVICE, begin_demo

        # The demo's data is written by a worker while the service answers (and a preparation
        # that was interrupted is finished); here only its tenant and credentials are made.
        context.services[PREPARE_SERVICE] = True
        credentials = None if _has_tenants(context) else begin_demo(context, seed=args.seed)
        if credentials is not None:
            print(
                "demo tenant ready: admin demo:demo, client id "
                f"{credentials.client_id}, client secret {credentials.client_secret}",
                flush=True,
            )
        elif args.rotate_client is not None:
            # The app lost its secret (no keyring keeps it): a new one, given here, spares it
            # running `client rotate`, a second start of most of the service (10 s at load 12).
            _rotate_at_start(context, args.rotate_client)
    if args.simulate:
        context.services["simulate_speed"] = args.speed
        # The simulator rebuilds the demo's plans from the seed it was made with.
        context.services["demo_seed"] = args.seed
    app = create_app(settings, context)
    port = DEFAULT_PORT if args.port is None else args.port
    # IPPROTO_TCP named explicitly: asyncio sets TCP_NODELAY on accepted connections only when
    # the listening socket says it is TCP, and without it every small answer waits for the
    # client's delayed ACK (about 40 ms a request).
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, port))
    except OSError as exc:
        why = f"cannot listen on {args.host}:{port}: {exc.strerror}"
        lock.fail(why)
        print(f"freightdesk: {why}", file=sys.stderr)
        return 2
    # Listening from here on (uvicorn's own listen() only sets the backlog again): a client
    # told the URL below is queued until the server accepts, never refused.
    sock.listen(2048)
    bound_port = sock.getsockname()[1]
    note_listening(context.services, settings, args.host, bound_port, warn=args.parent_pipe is None)
    # The collection before freezing walks every object of the start (about 0.1 s of CPU):
    # done once the first requests have been answered instead of before.
    settle = threading.Timer(COLLECTOR_SETTLE_SECONDS, _settle_collector)
    settle.daemon = True
    settle.start()
    # No WebSocket support: the interface has no WebSocket operation, and loading it is a
    # part of every start.
    # The HTTP protocol bounds a request's headers and the connections of one address
    # (server/connections.py).
    config = uvicorn.Config(
        app,
        log_config=None,
        access_log=False,
        lifespan="on",
        ws="none",
        http=connection_protocol(settings),
        # A stop answers what is in flight for this long, then closes: an app gone (the
        # parent pipe) leaves nobody of its own waiting, and its promise is a service gone
        # within 5 s (lifetime.HARD_EXIT_SECONDS); a team server's SIGTERM gets longer.
        timeout_graceful_shutdown=1 if args.parent_pipe is not None else 10,
    )
    server = uvicorn.Server(config)
    host = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{host}:{bound_port}"
    lock.announce(url)
    print(f"FreightDesk local service listening on {url}", flush=True)
    interrupted = False
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        # Ctrl+C in a terminal: uvicorn has shut the application down and raises the signal
        # again once done. A stop the user asked for, not a failure.
        interrupted = True
    # The signal raised again reaches asyncio's own SIGINT handler, which does not always
    # turn it into KeyboardInterrupt (on a busy machine the main task may have ended first):
    # what uvicorn caught says it too.
    if interrupted or signal.SIGINT in getattr(server, "_captured_signals", ()):
        print("freightdesk: the local service stopped", file=sys.stderr)
    context.engine.dispose()
    lock.release()
    return 0


# The lines `serve` prints while it upgrades its database's schema, before it listens: the
# app's supervisor waits for it past its start limit while they come (local_service.py). One
# as each migration begins, then its share done ("…, 40%") where it can tell. The same is
# noted in the data directory's lock for another window's app, which cannot read them.
UPGRADING_LINE = "FreightDesk local service upgrading its database: version {}, {}"


def _settle_collector() -> None:
    # Everything alive now lives as long as the service: keep it out of the cyclic collector,
    # and collect young objects less often. Under push load the default settings spend
    # about 45% of the CPU in the collector (docs/performance.md, Carrier push).
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 10, 10)
    gc.enable()


def _has_tenants(context: ServiceContext) -> bool:
    from sqlalchemy import select

    from freightdesk.server.tables.tenancy import Tenant

    # The table, not the ORM: the first ORM statement of a process configures every mapper
    # (about 25 ms of CPU), which this check, made before the service answers, leaves to the
    # first request that needs them.
    with context.engine.connect() as connection:
        return connection.scalar(select(Tenant.__table__.c.id).limit(1)) is not None


def _context(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from freightdesk.server.app import build_context
    from freightdesk.server.settings import ServerSettings

    return build_context(
        ServerSettings.from_options(database_url=args.database, data_dir=args.data_dir)
    )


def _tenant(args: argparse.Namespace) -> int:
    from sqlalchemy import select

    from freightdesk.server.db import transaction
    from freightdesk.server.domain.tenants import ensure_tenant, set_feature
    from freightdesk.server.tables.tenancy import Tenant

    context = _context(args)
    if args.tenant_command == "add":
        user, sep, password = args.admin.partition(":")
        if not sep or not user or not password:
            print("freightdesk: --admin takes USER:PASSWORD", file=sys.stderr)
            return 2
        try:
            with transaction(context.sessions) as session:
                result = ensure_tenant(session, args.name, user, password, args.kind)
                print(result.tenant.uuid)
        except ValueError as exc:
            print(f"freightdesk: {exc}", file=sys.stderr)
            return 2
        return 0
    with transaction(context.sessions) as session:
        tenant = session.scalar(select(Tenant).where(Tenant.name == args.name))
        if tenant is None:
            print(f"freightdesk: no tenant named {args.name!r}", file=sys.stderr)
            return 2
        set_feature(session, tenant, args.feature, args.state == "on")
    print(f"{args.feature} is {args.state} for {args.name}")
    return 0


def _client(args: argparse.Namespace) -> int:
    tenant_name = args.tenant
    if getattr(args, "demo", False):
        from freightdesk.server.demo import DEMO_TENANT_NAME

        tenant_name = DEMO_TENANT_NAME
    try:
        client_id, secret = _client_secret(
            _context(args), tenant_name, args.name, rotate=args.client_command == "rotate"
        )
    except ClientError as exc:
        print(f"freightdesk: {exc}", file=sys.stderr)
        return 2
    print(f"client id {client_id}, client secret {secret}")
    return 0


# The line `serve --rotate-client` prints; the app's supervisor reads it (local_service.py).
ROTATED_LINE = "desktop client rotated: client id {}, client secret {}"


def _rotate_at_start(context: ServiceContext, name: str) -> None:
    from freightdesk.server.demo import DEMO_TENANT_NAME

    try:
        client_id, secret = _client_secret(context, DEMO_TENANT_NAME, name, rotate=True)
    except ClientError as exc:  # the app then runs `client rotate`, which says why
        print(f"freightdesk: no new secret for {name!r}: {exc}", file=sys.stderr, flush=True)
        return
    print(ROTATED_LINE.format(client_id, secret), flush=True)


class ClientError(Exception):
    """A client application could not be registered or given a new secret (why, in words)."""


def _client_secret(
    context: ServiceContext, tenant_name: str, name: str, *, rotate: bool
) -> tuple[str, str]:
    """The id and a new secret of the tenant's client application `name`, registered unless
    `rotate` finds it registered already."""
    from sqlalchemy import select

    from freightdesk.server.db import transaction
    from freightdesk.server.domain.tenants import create_client_app, rotate_secret
    from freightdesk.server.errors import ApiError
    from freightdesk.server.tables.tenancy import ClientApp, Tenant

    with transaction(context.sessions) as session:
        tenant = session.scalar(select(Tenant).where(Tenant.name == tenant_name))
        if tenant is None:
            raise ClientError(f"no tenant named {tenant_name!r}")
        existing = session.scalar(
            select(ClientApp).where(ClientApp.tenant_id == tenant.id, ClientApp.name == name)
        )
        try:
            if rotate and existing is not None:
                app, secret = existing, rotate_secret(session, existing)
            else:
                app, secret = create_client_app(session, tenant.id, name)
        except ApiError as exc:
            raise ClientError(exc.message) from exc
        return str(app.id), secret


def _named_tenant(session: Session, name: str) -> Tenant | None:
    """The tenant called `name`, or None having said so."""
    from sqlalchemy import select

    from freightdesk.server.tables.tenancy import Tenant

    tenant = session.scalar(select(Tenant).where(Tenant.name == name))
    if tenant is None:
        print(f"freightdesk: no tenant named {name!r}", file=sys.stderr)
    return tenant


def _carrier(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from freightdesk.models.booking import CarrierProfileInput
    from freightdesk.server.db import transaction
    from freightdesk.server.domain import carrier_profiles
    from freightdesk.server.errors import ApiError

    with transaction(_context(args).sessions) as session:
        tenant = _named_tenant(session, args.tenant)
        if tenant is None:
            return 2
        try:
            if args.carrier_command == "set":
                changes = {
                    "name": args.name,
                    "behaviour": args.behaviour,
                    "response_delay_seconds": args.response_delay,
                    "quote_delay_seconds": args.quote_delay,
                    "account_group_codes": args.account_group,
                }
                body = CarrierProfileInput(**{k: v for k, v in changes.items() if v is not None})
                profile = carrier_profiles.upsert_profile(session, tenant.id, args.scac, body)
                print(f"{profile.scac} {profile.name}: {profile.behaviour.value}")
            elif args.carrier_command == "reset":
                if not carrier_profiles.delete_profile(session, tenant.id, args.scac):
                    print(f"{args.scac.upper()} already has its defaults")
            else:
                for profile in carrier_profiles.connected(session, tenant.id):
                    print(f"{profile.scac}\t{profile.name}\t{profile.behaviour.value}")
        except ApiError as exc:
            print(f"freightdesk: {exc.message}", file=sys.stderr)
            return 2
        except ValidationError as exc:
            print(f"freightdesk: {exc.errors()[0]['msg']}", file=sys.stderr)
            return 2
    return 0


# The option each field of a site is typed in (an error names what the user typed).
YARD_OPTIONS = {
    "code": "CODE",
    "name": "NAME",
    "timeZone": "--time-zone",
    "dockDoorCount": "--doors",
    "slotMinutes": "--slot-minutes",
    "openingHours": "--hours",
}


def _yard(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from freightdesk.models.yard import YardSiteInput, opening_hours_text, parse_opening_hours
    from freightdesk.server.db import transaction
    from freightdesk.server.domain import yard
    from freightdesk.server.errors import ApiError, loc_to_path

    with transaction(_context(args).sessions) as session:
        tenant = _named_tenant(session, args.tenant)
        if tenant is None:
            return 2
        try:
            if args.site_command == "add":
                typed = {
                    "code": args.code,
                    "name": args.name,
                    "timeZone": args.time_zone,
                    "dockDoorCount": args.doors,
                    "slotMinutes": args.slot_minutes,
                    "openingHours": parse_opening_hours(args.hours),
                }
                body = YardSiteInput.model_validate(typed)
                added = yard.create_site(session, tenant.id, body)
                print(f"{added.code} {added.name}: {len(added.dock_doors)} doors")
            elif args.site_command == "remove":
                yard.remove_site(session, tenant.id, args.code)
                print(f"{args.code.strip().upper()} removed")
            else:
                for found in yard.list_sites(session, tenant.id).sites:
                    hours = opening_hours_text(found.opening_hours)
                    print(f"{found.code}\t{found.name}\t{found.time_zone}\t{hours}")
        except ApiError as exc:
            print(f"freightdesk: {exc.message}", file=sys.stderr)
            return 2
        except ValidationError as exc:
            first = exc.errors()[0]
            path = loc_to_path(first["loc"])
            option = YARD_OPTIONS.get(path.split(".")[0].split("[")[0], path)
            message = str(first["msg"]).removeprefix("Value error, ")
            print(f"freightdesk: {option}: {message}", file=sys.stderr)
            return 2
        except ValueError as exc:  # the opening hours as typed
            print(f"freightdesk: --hours: {exc}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
