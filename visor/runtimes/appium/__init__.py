"""The Appium runtime: real Android and iOS devices, and mobile web pages in Chromium, through an Appium 2/3 server.

- `android_data`: A real Android phone's personal data, through adb (the AgentCab protocol on a phone:
  `device_data()` on Appium)
- `capabilities`: W3C capabilities for UiAutomator2 (Android), XCUITest (iOS) and Chromium (the web), from options
  and scenario
- `config`: The Appium runtime's part of a device's configuration, and the options that fill it. Light to import
- `deadline`: One total deadline per request to an Appium server, enforced, and a note while a request is slow
- `described`: Finds that describe their elements: Appium's element response attributes
- `device_settings`: `set_orientation`, `set_permissions`, `clear_keychain`, `set_airplane_mode`, `set_location` as
  Appium commands
- `device_logs`: A device's log over Appium: which log type each platform keeps, and its entries as visor's log
  lines. Pure
- `device`: The Appium runtime: the device protocol over a WebDriver session with an Appium 2/3 server
- `error_mapping`: Where selenium's and Appium's exceptions become visor's: nowhere else in visor catches them
- `host_programs`: The host's tools around Appium: connected devices (adb, xcrun simctl), the Appium server, its
  drivers
- `keys`: Keys over Appium: which driver command presses each key, per platform. Pure data, no I/O
- `launching`: `launch_app`'s options and `add_media`'s files as Appium commands: planned, pure, before anything is
  sent
- `locators`: How the Appium runtime finds an observed element natively: a fast locator, and an exact one. Pure
- `native`: Native actions over Appium: which driver command performs each one, per platform. Pure data, no I/O
- `web`: The web platform: a mobile page in Chromium, driven through Appium's Chromium driver
- `recording`: A run's video over Appium: the driver's own screen recording on a phone, the page's pictures on
  the web
- `transport`: The HTTP connection to the Appium server: selenium's, with a total deadline per request and bounded
  retries
"""
