"""Collecting a 5,000-photo profile with perceptual hashes on the simulated phone (issue 12: under 2 s).

Measured: loading the generated profile (parse and validate), opening the simulated phone on it, and collecting
`device:photos` with `include_hashes` plus `device:photo_hashes` over every photo (pictures drawn, decoded and
hashed). Baseline, in the same run: collecting the same fields without hashes, so the ratio is what hashing costs.
Run: python bench/agentcab_collect.py [--photos 5000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path


def collect(profile: str, photos: int, hashes: bool) -> tuple[float, int]:
    """Load the profile and collect; return the seconds and the photos collected."""
    from visor.clock import VirtualClock
    from visor.ext.agentcab.collect import Collector
    from visor.ext.agentcab.spec.formats import read_input_schema
    from visor.runtimes.sim.device import SimDevice
    from visor.runtimes.sim.load import DEFAULT_APP, load_app, resolve_app
    from visor.runtimes.sim.profile_load import _load_cached
    from visor.ui.images import photo_hash

    _load_cached.cache_clear()
    options = {"limit": photos, "include_hashes": hashes}
    properties = {"photos": {"format": "device:photos", "x-device-options": options}}
    if hashes:
        properties["hashes"] = {"format": "device:photo_hashes", "x-device-options": {"limit": photos}}
    schema, _ = read_input_schema({"properties": properties})
    assert schema is not None
    started = time.perf_counter()
    from visor.runtimes.sim.profile_load import load_profile

    device = SimDevice(load_app(resolve_app(DEFAULT_APP, ".")), clock=VirtualClock(), seed=1,
                       profile=load_profile(profile))  # fmt: skip
    got = Collector(device, lambda *args: "file_0", photo_hash).collect(schema).payload
    took = time.perf_counter() - started
    return took, len(got["photos"])


def main() -> int:
    """Measure and print; exit 1 when the goal is missed."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--photos", type=int, default=5000)
    count = parser.parse_args().photos
    from visor.clock import VirtualClock
    from visor.runtimes.sim.pictures import picture
    from visor.runtimes.sim.profile_generator import generate, profile_yaml

    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "big.profile.yaml")
        Path(path).write_text(profile_yaml(generate(photos=count, seed=7, now=VirtualClock().now()), photos=count,
                                           seed=7))  # fmt: skip
        base, _ = collect(path, count, hashes=False)
        picture.cache_clear()  # no picture drawn before: the hashed run draws every one
        took, found = collect(path, count, hashes=True)
    print(f"{count} photos: profile loaded and photos listed in {base:.2f} s (no hashes)")
    print(f"with include_hashes and device:photo_hashes: {took:.2f} s (goal < 2 s); hashing costs {took / base:.1f}x")
    return 0 if took < 2 and found == count else 1


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.exit(main())
