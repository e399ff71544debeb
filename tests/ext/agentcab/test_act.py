"""Applying an agent's actions on the simulated phone: every type of seed 003, confirmation shown and answered."""

from __future__ import annotations

from typing import Any

import pytest

from tests.ext.agentcab.test_collect import PROFILE, ROOT, phone
from visor.device.data import RecordKind
from visor.ext.agentcab.act import Applier, Question
from visor.ext.agentcab.confirm import policy_confirmer
from visor.ext.agentcab.spec.output_actions import ACTIONS, read_actions
from visor.ext.agentcab.spec.policy import Policy, Rule
from visor.runtimes.sim.device import SimDevice

WEB = {"https://example.com/report.pdf": {"size": 1000, "mimeType": "application/pdf"},
       "https://example.com/huge.iso": {"size": 500_000_000}, "https://example.com/wall.jpg": {"size": 10}}  # fmt: skip


def apply(actions: list[dict[str, Any]], device: SimDevice | None = None, confirm: str = "approve",
          seen: list[str] | None = None) -> tuple[list[dict[str, Any]], SimDevice]:  # fmt: skip
    device = device or phone(web=WEB)
    plan, issues = read_actions({"actions": actions})
    assert plan is not None, issues
    confirmer = policy_confirmer(Policy(confirm), None)  # type: ignore[arg-type]

    def watching(question: Question) -> Any:
        # The question is on the screen while it is being answered.
        if seen is not None:
            seen.extend(item.node.text for item in device.observe().tree.flat if item.node.text)
        return confirmer(question)

    applied = Applier(device, device.clock, watching).apply(plan)
    return [item.to_dict() for item in applied], device


def outcomes(result: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(item["type"], item["outcome"]) for item in result]


def test_file_operations_change_the_phones_files() -> None:
    result, device = apply([
        {"type": "create_directory", "path": f"{ROOT}/Documents/agent"},
        {"type": "write_file", "path": f"{ROOT}/Documents/agent/note.txt", "content": "hello"},
        {"type": "copy_file", "source": f"{ROOT}/Documents/agent/note.txt", "dest": f"{ROOT}/Documents/copy.txt"},
        {"type": "move_file", "source": f"{ROOT}/Documents/copy.txt", "dest": f"{ROOT}/Download/moved.txt"},
        {"type": "delete_file", "path": f"{ROOT}/Download/big.mp4"},
        {"type": "delete_files", "paths": [f"{ROOT}/Music/song.mp3", f"{ROOT}/Pictures/old.jpg"]},
        {"type": "download_file", "url": "https://example.com/report.pdf", "filename": "report.pdf"},
        {"type": "download_file", "url": "https://example.com/report.pdf", "filename": "report.pdf"},
    ])  # fmt: skip
    assert all(outcome == "done" for _, outcome in outcomes(result)), result
    data = device.data
    assert data.read_file(f"{ROOT}/Documents/agent/note.txt") == b"hello"
    assert data.read_file(f"{ROOT}/Download/moved.txt") == b"hello" and f"{ROOT}/Documents/copy.txt" not in data.stored
    assert f"{ROOT}/Download/big.mp4" not in data.stored and f"{ROOT}/Pictures/old.jpg" not in data.stored
    assert "old.jpg" not in [photo["name"] for photo in data.records(RecordKind.PHOTOS)]
    assert f"{ROOT}/Download/report.pdf" in data.stored and f"{ROOT}/Download/report (1).pdf" in data.stored


def test_impossible_file_operations_fail_and_the_list_goes_on() -> None:
    result, device = apply([
        {"type": "delete_file", "path": f"{ROOT}/Download/nope.txt"},
        {"type": "copy_file", "source": f"{ROOT}/Download/notes.txt", "dest": f"{ROOT}/Download/big.mp4"},
        {"type": "write_file", "path": f"{ROOT}/NoSuchFolder/a.txt", "content": "x"},
        {"type": "download_file", "url": "https://unknown.example.com/x", "filename": "x"},
        {"type": "download_file", "url": "https://example.com/huge.iso", "filename": "huge.iso"},
        {"type": "notify", "title": "still", "body": "runs"},
    ])  # fmt: skip
    assert outcomes(result) == [("delete_file", "failed"), ("copy_file", "failed"), ("write_file", "failed"),
                                ("download_file", "failed"), ("download_file", "failed"), ("notify", "done")]  # fmt: skip
    assert "not there" in result[0]["reason"] and "already exists" in result[1]["reason"]
    assert "over the download cap" in result[4]["reason"]
    assert device.data.read_file(f"{ROOT}/Download/big.mp4")  # never overwritten


def test_calendar_alarms_communication_sharing_notifications_and_apps() -> None:
    result, device = apply([
        {"type": "create_event", "calendarId": "1", "title": "Review", "startTime": "2026-01-02T15:00:00Z",
         "endTime": "2026-01-02T16:00:00Z", "location": "Office"},
        {"type": "delete_event", "eventId": "far"},
        {"type": "set_alarm", "hour": 7, "minute": 30, "message": "Wake up"},
        {"type": "send_sms", "number": "+1 555 0100", "text": "On my way"},
        {"type": "make_call", "number": "+1 555 0100"},
        {"type": "share_text", "text": "My week", "title": "AI Life Weekly"},
        {"type": "share_file", "url": "https://example.com/report.pdf", "filename": "r.pdf", "mimeType": "application/pdf"},
        {"type": "copy_clipboard", "text": "My AI Life Weekly Report"},
        {"type": "open_url", "url": "https://example.com/"},
        {"type": "notify", "title": "Cleanup Complete", "body": "Freed 3.2GB"},
        {"type": "launch_app", "packageName": "com.visor.demo"},
        {"type": "uninstall_app", "packageName": "com.whatsapp"},
        {"type": "open_deeplink", "uri": "demo://settings"},
        {"type": "set_wallpaper", "url": "https://example.com/wall.jpg"},
    ])  # fmt: skip
    assert all(outcome == "done" for _, outcome in outcomes(result)), result
    data = device.data
    titles = [event["title"] for event in data.records(RecordKind.CALENDAR)]
    assert "Review" in titles and "Far" not in titles
    assert data.alarms == [{"hour": 7, "minute": 30, "message": "Wake up"}]
    assert data.records(RecordKind.SMS)[0]["type"] == "sent" and data.records(RecordKind.SMS)[0]["body"] == "On my way"
    assert data.records(RecordKind.CALL_LOG)[0]["type"] == "outgoing"
    assert [item["kind"] for item in data.shared] == ["text", "file"] and data.clipboard == "My AI Life Weekly Report"
    assert (
        data.opened == ["https://example.com/"]
        and data.records(RecordKind.NOTIFICATIONS)[0]["title"] == "Cleanup Complete"
    )
    assert [app["packageName"] for app in data.records(RecordKind.APPS)] == ["com.android.settings"]
    assert any(item.node.text == "Settings" for item in device.observe().tree.flat)  # the deep link opened it
    assert data.wallpaper == "https://example.com/wall.jpg"


def test_accessibility_actions_act_on_the_screen() -> None:
    result, device = apply([
        {"type": "long_press", "text": "Log in"},
        {"type": "set_text", "targetText": "Username", "newText": "ada"},
        {"type": "set_text", "targetText": "Password", "newText": "lovelace"},
        {"type": "sequence", "delay_ms": 1000, "actions": [{"type": "click_text", "text": "log in"}]},
        {"type": "scroll", "direction": "down"},
        {"type": "swipe", "startX": 540, "startY": 1500, "endX": 540, "endY": 900},
        {"type": "open_notifications"},
        {"type": "press_back"},
        {"type": "press_home"},
    ])  # fmt: skip
    assert all(outcome == "done" for _, outcome in outcomes(result)), result
    assert result[0]["reason"].startswith('long-pressed Button "Log in"')
    assert device.apps["com.visor.demo"].top.name == "feed"  # signed in
    assert device.foreground == "launcher" and not device.data.shade


def test_text_under_a_dialog_is_not_tapped() -> None:
    device = phone()
    device.data.show_dialog("Busy", "Wait", ("OK",))
    device.data.dialog = None  # the app's own screen again, now with a dialog of the app over it:
    device.open_url("demo://settings")
    device.tap(next(item.node.bounds.center for item in device.observe().tree.flat if item.node.text == "Log out"))
    result, _ = apply([{"type": "click_text", "text": "Sync now"}], device)
    assert outcomes(result) == [("click_text", "failed")] and "is covered by" in result[0]["reason"]


def test_the_notification_shade_shows_the_notifications() -> None:
    _, device = apply([{"type": "open_notifications"}])
    texts = [item.node.text for item in device.observe().tree.flat]
    assert "Notifications" in texts and "Ada\nhi" in texts


def test_accessibility_actions_are_refused_when_the_service_is_off() -> None:
    result, _ = apply([{"type": "click_text", "text": "Log in"}, {"type": "press_back"}, {"type": "notify",
                       "title": "a", "body": "b"}], phone(accessibility=False))  # fmt: skip
    assert outcomes(result) == [("click_text", "refused"), ("press_back", "refused"), ("notify", "done")]


def test_text_not_on_the_screen_fails() -> None:
    result, _ = apply([{"type": "click_text", "text": "Nowhere"}, {"type": "set_text", "targetText": "Nope",
                       "newText": "x"}])  # fmt: skip
    assert outcomes(result) == [("click_text", "failed"), ("set_text", "failed")]


def test_a_confirmation_is_a_dialog_on_the_screen_answered_by_a_tap() -> None:
    seen: list[str] = []
    result, device = apply([{"type": "delete_file", "path": f"{ROOT}/Download/big.mp4"}], confirm="deny", seen=seen)
    assert outcomes(result) == [("delete_file", "declined")] and "denied" in result[0]["reason"]
    assert "Delete this file?" in seen and "Allow" in seen and "Cancel" in seen
    assert f"{ROOT}/Download/big.mp4" in device.data.stored
    assert device.data.dialog is None and device.data.dialog_answer() == "Cancel"


def test_sms_and_calls_need_the_system_screen_too() -> None:
    answers: list[str] = []

    def approve_once(question: Question) -> Any:
        answers.append(question.title)
        return ("approve", "test") if len(answers) == 1 else ("deny", "test")

    device = phone()
    plan, _ = read_actions({"actions": [{"type": "send_sms", "number": "+1 555", "text": "hi"}]})
    assert plan is not None
    result = Applier(device, device.clock, approve_once).apply(plan)
    assert answers == ["Send this SMS?", "Send SMS?"] and result[0].outcome == "declined"
    assert all(message["type"] == "inbox" for message in device.data.records(RecordKind.SMS))


def test_a_declined_group_runs_none_of_its_actions_and_sequences_wait_in_device_time() -> None:
    group = {"type": "confirm_actions", "message": "Delete?", "actions": [
        {"type": "delete_file", "path": f"{ROOT}/Download/big.mp4"}, {"type": "notify", "title": "t", "body": "b"}]}  # fmt: skip
    result, device = apply([group], confirm="deny")
    assert outcomes(result) == [("confirm_actions", "declined"), ("delete_file", "declined"), ("notify", "declined")]
    sequence = {"type": "sequence", "delay_ms": 2000, "actions": [{"type": "notify", "title": "1", "body": ""},
                                                                  {"type": "notify", "title": "2", "body": ""}]}  # fmt: skip
    result, device = apply([sequence])
    assert [item["at_ms"] for item in result] == [0, 0, 2000]
    assert device.clock.monotonic_us() >= 4_000_000


def test_a_policy_decides_per_type_and_path() -> None:
    policy = Policy("rules", (Rule(type="delete_file", paths=[f"{ROOT}/Download/*"], decision="approve"),), "deny")
    device = phone()
    plan, _ = read_actions({"actions": [
        {"type": "confirm_actions", "message": "Clean up", "actions": [
            {"type": "delete_file", "path": f"{ROOT}/Download/big.mp4"},
            {"type": "delete_file", "path": f"{ROOT}/Download/notes.txt"}]},
        {"type": "confirm_actions", "message": "And this", "actions": [
            {"type": "delete_file", "path": f"{ROOT}/Documents/cv.pdf"}]},
        {"type": "uninstall_app", "packageName": "com.whatsapp"},
    ]})  # fmt: skip
    assert plan is not None
    result = Applier(device, device.clock, policy_confirmer(policy, None)).apply(plan)
    assert [(item.type, item.outcome) for item in result] == [
        ("confirm_actions", "done"), ("delete_file", "done"), ("delete_file", "done"),
        ("confirm_actions", "declined"), ("delete_file", "declined"), ("uninstall_app", "declined"),
    ]  # fmt: skip
    assert f"{ROOT}/Documents/cv.pdf" in device.data.stored


def test_ask_without_a_terminal_denies_and_says_so() -> None:
    confirmer = policy_confirmer(Policy("ask"), None)
    decision, why = confirmer(Question("actions[0]", "delete_file", "t", "m", ()))
    assert decision == "deny" and "no terminal" in why


def test_every_action_type_is_applied_somewhere_in_these_tests() -> None:
    import inspect
    import sys

    source = inspect.getsource(sys.modules[__name__])
    assert all(f'"type": "{name}"' in source for name in ACTIONS)
    assert len(ACTIONS) == 31 and PROFILE["accessibility"] is True


@pytest.mark.parametrize("confirm", ["approve", "deny"])
def test_the_same_actions_give_the_same_outcomes(confirm: str) -> None:
    actions: list[dict[str, Any]] = [
        {"type": "delete_file", "path": f"{ROOT}/Download/big.mp4"},
        {"type": "set_alarm", "hour": 1, "minute": 2},
    ]
    assert apply(actions, confirm=confirm)[0] == apply(actions, confirm=confirm)[0]


def test_write_file_never_replaces_a_file_without_the_confirmation_a_deletion_needs() -> None:
    # Replacing a file deletes it: a write_file (no confirmation) onto one would bypass delete_file's.
    result, device = apply([
        {"type": "write_file", "path": f"{ROOT}/Download/notes.txt", "content": "the agent's"},
        {"type": "delete_file", "path": f"{ROOT}/Documents/cv.pdf"},
        {"type": "write_file", "path": f"{ROOT}/Documents/cv.pdf", "content": "replaced, after its deletion was asked"},
    ], confirm="deny")  # fmt: skip
    assert outcomes(result) == [("write_file", "failed"), ("delete_file", "declined"), ("write_file", "failed")]
    assert "already exists" in result[0]["reason"] and "delete_file" in result[0]["reason"]
    assert device.data.read_file(f"{ROOT}/Download/notes.txt") == b"notes"
    approved, device = apply([
        {"type": "delete_file", "path": f"{ROOT}/Documents/cv.pdf"},
        {"type": "write_file", "path": f"{ROOT}/Documents/cv.pdf", "content": "new"},
    ])  # fmt: skip
    assert outcomes(approved) == [("delete_file", "done"), ("write_file", "done")]
    assert device.data.read_file(f"{ROOT}/Documents/cv.pdf") == b"new"


@pytest.mark.parametrize("state", ["ask-and-deny", "denied"])
def test_a_denied_permission_stops_an_sms_and_a_call_even_when_approved(state: str) -> None:
    device = phone(permissions={**PROFILE["permissions"], "send_sms": state, "make_call": state})
    result, device = apply([
        {"type": "send_sms", "number": "+1 555 0100", "text": "On my way"},
        {"type": "confirm_actions", "message": "Call?", "actions": [{"type": "make_call", "number": "+1 555 0100"}]},
    ], device)  # fmt: skip
    assert outcomes(result) == [("send_sms", "declined"), ("confirm_actions", "done"), ("make_call", "declined")]
    how = "asked: denied" if state == "ask-and-deny" else "denied"
    assert result[0]["reason"] == f"the SEND_SMS permission is denied ({how}): nothing was sent"
    assert "CALL_PHONE" in result[2]["reason"]
    assert device.data.permissions_asked() == {"send_sms": how, "make_call": how}
    assert all(message["type"] == "inbox" for message in device.data.records(RecordKind.SMS))
    assert all(call["type"] != "outgoing" for call in device.data.records(RecordKind.CALL_LOG))


def test_a_granted_permission_is_asked_once_then_the_system_screen_decides() -> None:
    result, device = apply([{"type": "send_sms", "number": "+1 555", "text": "a"},
                            {"type": "send_sms", "number": "+1 555", "text": "b"}])  # fmt: skip
    assert outcomes(result) == [("send_sms", "done"), ("send_sms", "done")]
    assert device.data.permissions_asked() == {"send_sms": "asked: granted"}


def feed(device: SimDevice) -> SimDevice:
    """Open the demo app's feed, its promotion (shown by chance) dismissed."""
    device.open_url("demo://feed")
    promo = [item.node for item in device.observe().tree.flat if item.node.text == "No thanks"]
    if promo:
        device.tap(promo[0].bounds.center)
    return device


def test_plain_text_in_a_clickable_row_is_pressed_as_android_does() -> None:
    # A list row is clickable; its title and subtitle are plain TextViews inside it: a tap on either opens the row.
    device = feed(phone())
    result, device = apply([{"type": "click_text", "text": "Item 2"}], device)
    assert outcomes(result) == [("click_text", "done")]
    assert result[0]["reason"].startswith('tapped TextView "Item 2"') and "LinearLayout" in result[0]["reason"]
    assert device.apps["com.visor.demo"].top.name == "detail"
    assert any(item.node.text == "A detailed description of item 2." for item in device.observe().tree.flat)
    result, _ = apply([{"type": "long_press", "text": "posted by user 3"}], feed(device))
    assert outcomes(result) == [("long_press", "done")] and "which takes the press" in result[0]["reason"]


@pytest.mark.parametrize(("link", "text"), [("demo://login", "Welcome back"), ("demo://feed", "Feed")])
def test_text_that_nothing_takes_a_press_for_is_said_to_be_there(link: str, text: str) -> None:
    device = feed(phone()) if link == "demo://feed" else phone()
    result, _ = apply([{"type": "click_text", "text": text}, {"type": "long_press", "text": text}], device)
    assert outcomes(result) == [("click_text", "failed"), ("long_press", "failed")]
    assert result[0]["reason"].startswith(f'TextView "{text}"')
    assert result[0]["reason"].endswith(f"shows {text!r}, but nothing there takes a press: nothing was touched")
    assert (
        "nothing there takes a long press" in result[1]["reason"] and "nothing on the screen" not in result[0]["reason"]
    )


def test_a_dialogs_own_text_is_not_pressed_through_its_backdrop() -> None:
    device = phone()
    device.open_url("demo://feed")  # the promotion shows by chance on this phone: a dialog over the feed
    assert any(item.node.text == "Special offer" for item in device.observe().tree.flat)
    result, device = apply([{"type": "click_text", "text": "Special offer"}], device)
    assert outcomes(result) == [("click_text", "failed")] and "nothing there takes a press" in result[0]["reason"]
    assert any(item.node.text == "Special offer" for item in device.observe().tree.flat)  # not dismissed


def test_shared_storage_ignores_case_as_androids_does() -> None:
    """`Download/NOTES.txt` beside `notes.txt` was a second file; Android's shared storage holds one name, any case."""
    result, device = apply([
        {"type": "write_file", "path": f"{ROOT}/Download/NOTES.txt", "content": "a second file"},
        {"type": "copy_file", "source": f"{ROOT}/download/notes.TXT", "dest": f"{ROOT}/DOCUMENTS/copy.txt"},
        {"type": "delete_file", "path": f"{ROOT}/documents/CV.PDF"},
    ])  # fmt: skip
    assert outcomes(result) == [("write_file", "failed"), ("copy_file", "done"), ("delete_file", "done")]
    assert "already exists" in result[0]["reason"]
    assert device.data.read_file(f"{ROOT}/Download/notes.txt") == b"notes"
    assert device.data.read_file(f"{ROOT}/Documents/copy.txt") == b"notes"  # in the folder as it is spelled
    names = [entry["path"] for entry in device.data.files(f"{ROOT}/Documents", False)]
    assert f"{ROOT}/Documents/cv.pdf" not in names and f"{ROOT}/DOCUMENTS/copy.txt" not in names


def test_a_policy_rule_matches_a_path_in_any_case() -> None:
    """A rule denying Download/* is not passed by an agent writing download/…, the same folder on a phone."""
    rule = Rule.model_validate({"type": "delete_file", "paths": [f"{ROOT}/Download/*"], "decision": "deny"})
    policy = Policy("rules", (rule,), "approve")
    assert policy.decide("delete_file", (f"{ROOT}/download/notes.txt",)) == "deny"
