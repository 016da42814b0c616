"""Shared fixtures."""

from __future__ import annotations

import pytest

from rummisim import load_profile
from rummisim.profile import RuleProfile


@pytest.fixture(scope="session")
def standard() -> RuleProfile:
    return load_profile("standard")
