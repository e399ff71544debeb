"""The pinned Appium install and the web tests' pages: not tests themselves.

The web scenarios here need the site served and an Appium server started, which
tests/runtimes/appium/test_web_e2e.py does before it runs them; collected alone they could not pass.
"""

collect_ignore_glob = ["web/*.yaml", "node_modules/*"]
