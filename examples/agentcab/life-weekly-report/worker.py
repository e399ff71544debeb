"""A small worker for seed 003's "Life Weekly Report" agent: the payload on stdin, the output on stdout.

It writes the week's report from the payload alone (no clock, no randomness, no network), so the same phone
always gets the same report, then asks the phone to copy it and open the share sheet with it.
"""

import json
import sys


def report(payload: dict) -> str:
    photos = payload.get("photos") or []
    events = payload.get("calendar") or []
    calls = payload.get("call_log") or []
    lines = ["# Your Week", "", f"- {len(photos)} photos taken", f"- {len(events)} events this week"]
    lines += [f"  - {event['startTime'][:10]} {event['title']}" for event in events]
    people = sorted({call["name"] for call in calls if call.get("name")})
    lines.append(f"- {len(calls)} calls, with {', '.join(people[:3]) or 'nobody'}")
    if payload.get("location"):
        lines.append(f"- Last seen at {payload['location']['latitude']:.2f}, {payload['location']['longitude']:.2f}")
    return "\n".join(lines)


def main() -> None:
    payload = json.load(sys.stdin)
    text = report(payload)
    highlights = [f"{len(payload.get('calendar') or [])} events this week"]
    output = {
        "report": text,
        "highlights": highlights,
        "actions": [
            {"type": "copy_clipboard", "text": "My AI Life Weekly Report\n" + text},
            {"type": "share_text", "text": "My AI Life Weekly Report\n" + text, "title": "AI Life Weekly"},
        ],
    }
    json.dump(output, sys.stdout)


if __name__ == "__main__":
    main()
