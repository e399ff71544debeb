"""A small worker for seed 003's "Phone Slim Coach" agent: the payload on stdin, the output on stdout.

It finds near-duplicate photos (perceptual hashes at most 10 bits apart: the later photo is the copy) and files
over 100 MB in Downloads, and asks to delete each group behind one confirmation, then to notify. It depends on its
payload only, so the same phone always gets the same advice.
"""

import json
import sys

LARGE = 100_000_000
CLOSE = 10


def duplicates(hashes: dict) -> list:
    kept, copies = [], []
    for path in sorted(hashes):  # photo names carry their date: the earlier one is kept
        value = int(hashes[path], 16)
        if any(bin(value ^ other).count("1") <= CLOSE for other in kept):
            copies.append(path)
        else:
            kept.append(value)
    return copies


def main() -> None:
    payload = json.load(sys.stdin)
    copies = duplicates(payload.get("photo_hashes") or {})
    large = [entry for entry in payload.get("downloads") or [] if not entry["isDirectory"] and entry["size"] > LARGE]
    freed = sum(entry["size"] for entry in large)
    actions = []
    if copies:
        actions.append({"type": "confirm_actions", "message": f"Delete {len(copies)} duplicate photos?",
                        "actions": [{"type": "delete_file", "path": path} for path in copies]})
    if large:
        actions.append({"type": "confirm_actions", "message": f"Delete {len(large)} large files in Downloads? "
                        f"(Free {freed / 1e9:.1f}GB)", "actions": [{"type": "delete_file", "path": entry["path"]}
                                                              for entry in large]})
    actions.append({"type": "notify", "title": "Cleanup Complete", "body": f"Up to {freed / 1e9:.1f}GB can be freed"})
    sections = [{"title": "Duplicate Photos", "description": f"Found {len(copies)} duplicate photos"},
                {"title": "Large Files", "description": f"{len(large)} files over 100MB in Downloads"}]
    json.dump({"summary": f"Your phone can free up {freed / 1e9:.1f}GB", "sections": sections, "actions": actions},
              sys.stdout)


if __name__ == "__main__":
    main()
