"""What a note on a converted Maestro command says, beyond "left out": Maestro refuses it, or Maestro ignores it.

A converter's notes are texts. Most say what visor leaves out. Two kinds say something about Maestro itself, read
from its own parser (its flow reader fails on an unknown command or option, and passes over an unknown header key):

- `Refused`: Maestro would not run the flow either (an unknown command or option, a value of the wrong kind). The
  command is left out, and the flow is reported as written invalid, not as something visor lacks.
- `Ignored`: Maestro reads it and does nothing with it, so the scenario does nothing with it either. Nothing is left
  out: the note says what the author may have meant.
"""

from __future__ import annotations


class Refused(str):
    """A note saying Maestro's own flow reader refuses this: the flow does not run there either."""

    __slots__ = ()


class Ignored(str):
    """A note saying Maestro passes over this as it runs the flow, and so does the converted scenario."""

    __slots__ = ()


#: Every command Maestro's flow reader knows (its reference's list, and the older `action` and `openBrowser`).
MAESTRO_COMMANDS = frozenset(
    {
        "action", "addMedia", "assertDarkMode", "assertLightMode", "assertNoDefectsWithAI", "assertNotVisible",
        "assertScreenshot", "assertTrue", "assertVisible", "assertWithAI", "back", "clearKeychain", "clearState",
        "copyTextFrom", "doubleTapOn", "eraseText", "evalScript", "extendedWaitUntil", "extractTextWithAI",
        "hideKeyboard", "inputRandomEmail", "inputRandomNumber", "inputRandomPersonName", "inputRandomText",
        "inputText", "killApp", "launchApp", "longPressOn", "openBrowser", "openLink", "pasteText", "pressKey",
        "repeat", "retry", "runFlow", "runScript", "scroll", "scrollUntilVisible", "setAirplaneMode", "setClipboard",
        "setLocation", "setOrientation", "setPermissions", "startRecording", "stopApp", "stopRecording", "swipe",
        "takeScreenshot", "tapOn", "toggleAirplaneMode", "travel", "waitForAnimationToEnd",
    }
)  # fmt: skip

#: What to write instead of a command or header key Maestro does not have, for those real flows reach for most.
INSTEAD = {
    "onFlowEnd": "onFlowComplete",
    "clearText": "eraseText",
    "clearInput": "eraseText",
    "assertOneOf": "assertVisible with a text pattern such as 'Saved|Done'",
}

#: The keys a flow's header means something by; Maestro passes over any other.
MAESTRO_HEADER = frozenset(
    {"appId", "url", "name", "tags", "env", "onFlowStart", "onFlowComplete", "jsEngine", "androidWebViewHierarchy",
     "properties"}
)  # fmt: skip

#: The keys of Maestro's element selector (any other makes its flow reader fail).
MAESTRO_SELECTOR = frozenset(
    {
        "text", "id", "width", "height", "tolerance", "optional", "retryTapIfNoChange", "waitUntilVisible", "point",
        "start", "end", "below", "above", "leftOf", "rightOf", "containsChild", "containsDescendants", "traits",
        "index", "enabled", "checked", "focused", "selected", "label", "repeat", "delay", "waitToSettleTimeoutMs",
        "childOf", "css",
    }
)  # fmt: skip
