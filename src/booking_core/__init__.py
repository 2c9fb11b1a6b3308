"""booking_core: the pure domain of the booking service (standard library only)."""
