"""The areas' services of an `AppSession` (documents, stop locations, bookings, ...): each is
made when first asked for, over the session's open cache, and forgotten when the session's
connection closes (their answers were that connection's tenant's)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from freightdesk.service.cache import Cache
from freightdesk.service.paths import AppPaths

# Imported when first needed, not when the app starts (see session.py).
if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient
    from freightdesk.service.account_groups import AccountGroupsService
    from freightdesk.service.bookings import BookingsService
    from freightdesk.service.capacity import CapacityService
    from freightdesk.service.carrier_profiles import CarrierProfilesService
    from freightdesk.service.carrier_push import CarrierPushService
    from freightdesk.service.documents import DocumentsService
    from freightdesk.service.packages import PackagesService
    from freightdesk.service.rail import RailService
    from freightdesk.service.rating import RatingService
    from freightdesk.service.schedules import SchedulesService
    from freightdesk.service.sharing import SharingService
    from freightdesk.service.stop_locations import StopLocationsService
    from freightdesk.service.uploads import UploadQueue
    from freightdesk.service.vehicles import VehiclesService
    from freightdesk.service.vltl import VltlService
    from freightdesk.service.webhooks import WebhooksService
    from freightdesk.service.yard import YardService

T = TypeVar("T")


class AreaServices:
    """The areas' services; the session provides what they are made with."""

    # The session's (`AppSession`).
    paths: AppPaths
    cache: Cache | None
    _cache_profile_id: str

    def require_client(self) -> ApiClient:
        raise NotImplementedError

    def shipments_changed(self) -> None:
        raise NotImplementedError

    def __init__(self) -> None:
        self._documents: DocumentsService | None = None
        self._uploads: UploadQueue | None = None
        self._stop_locations: StopLocationsService | None = None
        self._webhooks: WebhooksService | None = None
        self._account_groups: AccountGroupsService | None = None
        self._carrier_profiles: CarrierProfilesService | None = None
        self._rating: RatingService | None = None
        self._bookings: BookingsService | None = None
        self._packages: PackagesService | None = None
        self._schedules: SchedulesService | None = None
        self._capacity: CapacityService | None = None
        self._vehicles: VehiclesService | None = None
        self._rail: RailService | None = None
        # Services that keep their last results in whichever cache is open when they do.
        self._yard: YardService | None = None
        self._carrier_push: CarrierPushService | None = None
        self._vltl: VltlService | None = None
        self._sharing: SharingService | None = None

    def _forget_areas(self) -> None:
        """The connection closed: the next use makes each service anew."""
        self._uploads = self._documents = None
        self._stop_locations = self._webhooks = self._account_groups = None
        self._carrier_profiles = None
        self._rating = self._bookings = self._packages = None
        self._schedules = self._capacity = self._vehicles = self._rail = None
        self._sharing = None  # its answers were the closed connection's tenant's

    def _made(self, current: T | None, make: Callable[[Cache], T]) -> T | None:
        """`current`, or a new service over the open cache (None while no cache is open)."""
        if current is not None or self.cache is None:
            return current
        return make(self.cache)

    @property
    def documents(self) -> DocumentsService | None:
        def make(cache: Cache) -> DocumentsService:
            from freightdesk.service.documents import DocumentsService

            files_dir = self.paths.cache_dir / "files" / self._cache_profile_id
            return DocumentsService(self.require_client, cache, files_dir)

        self._documents = self._made(self._documents, make)
        return self._documents

    @property
    def uploads(self) -> UploadQueue | None:
        def make(_cache: Cache) -> UploadQueue:
            from freightdesk.service.uploads import UploadQueue

            documents = self.documents
            assert documents is not None
            return UploadQueue(self.require_client, on_uploaded=documents.added)

        self._uploads = self._made(self._uploads, make)
        return self._uploads

    @property
    def stop_locations(self) -> StopLocationsService | None:
        def make(cache: Cache) -> StopLocationsService:
            from freightdesk.service.stop_locations import StopLocationsService

            return StopLocationsService(self.require_client, cache)

        self._stop_locations = self._made(self._stop_locations, make)
        return self._stop_locations

    @property
    def webhooks(self) -> WebhooksService | None:
        def make(cache: Cache) -> WebhooksService:
            from freightdesk.service.webhooks import WebhooksService

            return WebhooksService(self.require_client, cache)

        self._webhooks = self._made(self._webhooks, make)
        return self._webhooks

    @property
    def account_groups(self) -> AccountGroupsService | None:
        def make(cache: Cache) -> AccountGroupsService:
            from freightdesk.service.account_groups import AccountGroupsService

            return AccountGroupsService(self.require_client, cache)

        self._account_groups = self._made(self._account_groups, make)
        return self._account_groups

    @property
    def carrier_profiles(self) -> CarrierProfilesService | None:
        def make(cache: Cache) -> CarrierProfilesService:
            from freightdesk.service.carrier_profiles import CarrierProfilesService

            return CarrierProfilesService(self.require_client, cache)

        self._carrier_profiles = self._made(self._carrier_profiles, make)
        return self._carrier_profiles

    @property
    def rating(self) -> RatingService | None:
        def make(cache: Cache) -> RatingService:
            from freightdesk.service.rating import RatingService

            return RatingService(self.require_client, cache)

        self._rating = self._made(self._rating, make)
        return self._rating

    @property
    def bookings(self) -> BookingsService | None:
        def make(cache: Cache) -> BookingsService:
            from freightdesk.service.bookings import BookingsService

            return BookingsService(self.require_client, cache)

        self._bookings = self._made(self._bookings, make)
        return self._bookings

    @property
    def packages(self) -> PackagesService | None:
        def make(cache: Cache) -> PackagesService:
            from freightdesk.service.packages import PackagesService

            return PackagesService(self.require_client, cache)

        self._packages = self._made(self._packages, make)
        return self._packages

    @property
    def schedules(self) -> SchedulesService | None:
        def make(cache: Cache) -> SchedulesService:
            from freightdesk.service.schedules import SchedulesService

            return SchedulesService(self.require_client, cache)

        self._schedules = self._made(self._schedules, make)
        return self._schedules

    @property
    def capacity(self) -> CapacityService | None:
        def make(cache: Cache) -> CapacityService:
            from freightdesk.service.capacity import CapacityService

            return CapacityService(self.require_client, cache)

        self._capacity = self._made(self._capacity, make)
        return self._capacity

    @property
    def vehicles(self) -> VehiclesService | None:
        def make(cache: Cache) -> VehiclesService:
            from freightdesk.service.vehicles import VehiclesService

            return VehiclesService(self.require_client, cache)

        self._vehicles = self._made(self._vehicles, make)
        return self._vehicles

    @property
    def rail(self) -> RailService | None:
        def make(cache: Cache) -> RailService:
            from freightdesk.service.rail import RailService

            return RailService(self.require_client, cache)

        self._rail = self._made(self._rail, make)
        return self._rail

    @property
    def yard(self) -> YardService:
        if self._yard is None:
            from freightdesk.service.yard import YardService

            self._yard = YardService(self.require_client, lambda: self.cache)
        return self._yard

    @property
    def carrier_push(self) -> CarrierPushService:
        if self._carrier_push is None:
            from freightdesk.service.carrier_push import CarrierPushService

            self._carrier_push = CarrierPushService(
                self.require_client, lambda: self.cache, self.shipments_changed
            )
        return self._carrier_push

    @property
    def vltl(self) -> VltlService:
        if self._vltl is None:
            from freightdesk.service.vltl import VltlService

            self._vltl = VltlService(self.require_client, lambda: self.cache)
        return self._vltl

    @property
    def sharing(self) -> SharingService:
        """Sharing with partners; who shared what, and the reader's own company, asked once."""
        if self._sharing is None:
            from freightdesk.service.sharing import SharingService

            self._sharing = SharingService(self.require_client, self.shipments_changed)
        return self._sharing
