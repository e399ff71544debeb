"""The Appium runtime: real Android and iOS devices through an Appium 2/3 server."""
