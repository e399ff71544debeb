"""Tests of visor's inputs package."""
