"""Selectors: `text=`, `id=`, XPath, UiSelector and class chains, parsed and checked before any device is touched."""
