"""What an Appium server says is scrubbed of the run's secrets in the forms a server quotes them in."""

from __future__ import annotations

import json
import urllib.parse

from visor.runtimes.appium.capabilities import scrub


def test_a_secret_the_server_quotes_escaped_or_encoded_is_scrubbed() -> None:
    """A server echoes a capability JSON-escaped, or in a URL percent-encoded: only the raw form was scrubbed."""
    key = 'ac"cess/Key9'
    said = f"bad {json.dumps({'accessKey': key})} at https://hub/wd?key={urllib.parse.quote(key, safe='')}"
    assert scrub(said, (key, "pw")) == 'bad {"accessKey": "***"} at https://hub/wd?key=***'
    assert scrub("user pw denied", ("pw",)) == "user *** denied"  # a short one, as it is
