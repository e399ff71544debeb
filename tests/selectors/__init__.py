"""Tests of visor's selectors package."""
