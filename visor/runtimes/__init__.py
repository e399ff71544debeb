"""Runtimes behind the device protocol: the simulated phone, Appium, a VisualAgent phone; the registry choosing one."""
