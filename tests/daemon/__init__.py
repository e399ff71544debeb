"""Tests of visor's daemon package."""
