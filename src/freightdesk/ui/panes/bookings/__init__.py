"""Bookings: follow the carriers' answers, edit, cancel, open the tracked shipment."""
