"""Tests of visor's ext.maestro package."""
