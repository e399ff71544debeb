"""The device protocol and the kernel every front end acts through (one context, one resolver, one re-find)."""
