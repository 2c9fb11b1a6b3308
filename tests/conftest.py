"""Settings shared by every test."""

from __future__ import annotations

import os

from hypothesis import settings

# Speed is measured by the benchmarks, not by per-example deadlines that flake on a busy CI machine.
settings.register_profile("booking", deadline=None, print_blob=True)
settings.register_profile("thorough", parent=settings.get_profile("booking"), max_examples=1500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "booking"))
