"""The engine: runs steps and assertions on a device and emits events; computes signatures and benchmarks."""
