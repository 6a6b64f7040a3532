"""Accessibility tests share the axe-core fixture."""

from tests.a11y.axe import axe_source  # noqa: F401
