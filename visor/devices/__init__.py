"""Runtimes: the simulated device (`sim`) and Appium (`appium`), behind the device protocol."""
