"""Scripts in scenarios: JavaScript run in a sandbox with no file, network or process access, deterministically.

- `sandbox`: Run one script on QuickJS, sandboxed and deterministic, with Maestro's globals and bounds on what it may
  use
"""
