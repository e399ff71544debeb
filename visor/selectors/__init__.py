"""Selectors: `text=`, `id=`, XPath, UiSelector and class chains, parsed and checked before any device is touched.

- `classchain`: iOS class chains (`classchain=`): the subset visor evaluates on an iOS UI tree
- `control`: The agent tools' exact control selector: light to import (the engine's run path needs it, not the
  tools)
- `parse`: Selector syntax: what a `target` string means, checked without a device
- `patterns`: Regular expressions from scenarios (`textMatches(...)` and its kin), compiled once and run with a time
  limit
- `predicate`: NSPredicate strings (`predicate=`, and inside class chains): the subset visor evaluates on an iOS UI
  tree
- `refine`: `match=` selectors: an element by a text or id pattern, its state, its place beside other elements, its
  index
- `uiselector`: UiSelector and UiScrollable expressions (`uiautomator=`), read as UiAutomator2 reads them
"""
