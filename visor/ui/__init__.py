"""The observed screen: UI trees, page source, selector queries and screen fingerprints.

Selectors are resolved here against the tree a device reports, so `text=Log in` means the same on every runtime.
"""
