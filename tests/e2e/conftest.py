"""End-to-end tests drive the real app (the same Qt setup as the UI tests)."""

from tests.ui.conftest import gui_thread_gc, paths, qapp_cls  # noqa: F401  (fixtures)
