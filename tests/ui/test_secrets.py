"""A secret is masked by value in every form an output gives it: no rendering of visor's lets one through.

Each renderer below is one an output uses (the envelope and summary.json, report.html and its JSON details,
junit.xml, page sources, URLs, messages quoting a value with `repr`, the console) or a common variant of one. A
rendered text holding a secret is masked (`mask_text`), decoded back, and the secret is not in it.
"""

from __future__ import annotations

import ast
import html
import json
import urllib.parse
import xml.etree.ElementTree as ET
from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st
from lxml import etree

from visor.inputs.suggest import did_you_mean
from visor.ui.escapes import printable, xml_text
from visor.ui.secrets import (
    MASK,
    WITHHELD_HINT,
    KeptPart,
    char_forms,
    concealer,
    holds,
    mask_rendered,
    mask_text,
    maskable,
    redact,
)

#: Characters each output escapes somehow, and the letters its escapes are made of (`\n`, `\u`, `&amp;`, `%2F`).
SPECIAL = "\"'<>&/\\%+ ;#=?:@\t\n\r\x1b\x07\x7f\x85\u202e\u2028é€😀"
SECRETS = st.text(alphabet=SPECIAL + "abnrtux07F", min_size=4, max_size=12)
#: Text around the secret in an output: plain, so that only the secret's own escapes are in play.
AROUND = st.text(alphabet="Z-. ", max_size=6)

Codec = tuple[Callable[[str], str], Callable[[str], str]]


def _element_attribute(text: str) -> str:
    return ET.tostring(ET.Element("node", text=xml_text(text)), encoding="unicode")


def _element_text(text: str) -> str:
    element = ET.Element("node")
    element.text = xml_text(text)
    return ET.tostring(element, encoding="unicode")


def _ascii_xml(text: str) -> str:
    return bytes(ET.tostring(ET.Element("node", text=xml_text(text)), encoding="us-ascii")).decode("ascii")


def _lxml_attribute(text: str) -> str:
    return etree.tostring(etree.Element("node", text=xml_text(text)), encoding="unicode")


def _attribute_of(xml: str) -> str:
    return str(etree.fromstring(xml.encode("utf-8")).get("text", ""))


def _text_of(xml: str) -> str:
    return etree.fromstring(xml.encode("utf-8")).text or ""


def _json_slash(text: str) -> str:
    return json.dumps(text).replace("/", "\\/")


def _report_details(text: str) -> str:
    """report.html: a step's details as JSON, in an HTML page."""
    return html.escape(json.dumps({"value": text}, indent=2, ensure_ascii=False))


def _from_report(page: str) -> str:
    return str(json.loads(html.unescape(page))["value"])


def _quoted_in_report(text: str) -> str:
    """report.html showing a message that quotes the secret with `repr` (an assertion's details)."""
    return _report_details(f"Text {text!r} does not equal 'x'")


def _quoted_in_junit(text: str) -> str:
    return _element_attribute(f"Text {text!r} does not equal 'x'")


#: Each renderer with what decodes it again (or `str` where nothing does: the text is looked at as it is).
RENDERERS: dict[str, Codec] = {
    "json": (lambda t: json.dumps(t, ensure_ascii=False), json.loads),
    "json ascii": (json.dumps, json.loads),
    "json slash": (_json_slash, json.loads),
    "html": (html.escape, html.unescape),
    "html text": (lambda t: html.escape(t, quote=False), html.unescape),
    "xml attribute": (_element_attribute, _attribute_of),
    "xml text": (_element_text, _text_of),
    "xml ascii": (_ascii_xml, _attribute_of),
    "lxml attribute": (_lxml_attribute, _attribute_of),
    "url": (urllib.parse.quote, urllib.parse.unquote),
    "url all": (lambda t: urllib.parse.quote(t, safe=""), urllib.parse.unquote),
    "url plus": (urllib.parse.quote_plus, urllib.parse.unquote_plus),
    "repr": (repr, ast.literal_eval),
    "json of repr": (lambda t: json.dumps(repr(t)), lambda t: ast.literal_eval(json.loads(t))),
    "report details": (_report_details, _from_report),
    "report quoting": (_quoted_in_report, _from_report),
    "junit quoting": (_quoted_in_junit, _attribute_of),
    "console": (printable, str),
}


def _found(secret: str, decoded: str) -> bool:
    """Say whether the secret is in a decoded text, as itself or as the XML and console outputs change it."""
    return any(form in decoded for form in (secret, xml_text(secret), printable(secret)))


@given(secret=SECRETS, before=AROUND, after=AROUND)
def test_no_rendering_lets_a_secret_through(secret: str, before: str, after: str) -> None:
    for name, (render, decode) in RENDERERS.items():
        rendered = render(before + secret + after)
        masked = mask_text(rendered, [secret])
        assert MASK in masked, name
        assert not _found(secret, decode(masked)), (name, secret, masked)


def test_the_forms_the_issue_names_are_masked() -> None:
    secret = 'pa"ss\\wörd/é'
    for form in (
        'pa\\"ss\\\\w\\u00f6rd/\\u00e9',
        'pa\\"ss\\\\wörd\\/é',
        "pa&quot;ss\\wörd/é",
        "pa&#34;ss\\wörd/é",
        "pa%22ss%5Cw%C3%B6rd/%C3%A9",
        "pa%22ss%5Cw%C3%B6rd%2F%C3%A9",
        "pa%22ss%5Cw%c3%b6rd%2f%c3%a9",
    ):
        assert mask_text(f"<{form}>", [secret]) == f"<{MASK}>", form  # fmt: skip
    quote = "it's"
    assert mask_text(f"&#x27;{quote}&#39;", ["it's"]) == f"&#x27;{MASK}&#39;"
    assert mask_text("it&#x27;s it&#39;s it&apos;s", ["it's"]) == f"{MASK} {MASK} {MASK}"


def test_an_escape_is_masked_whole_so_json_stays_json() -> None:
    """Masking a backslash's first half only would leave `\\"`: the string would not end."""
    for secret in ("abc\\", "\\abc", 'ab"c', "ab\u202ec"):
        text = json.dumps({"a": f"x{secret}", "b": secret, "c": f"{secret}y"})
        assert json.loads(mask_text(text, [secret])) == {"a": f"x{MASK}", "b": MASK, "c": f"{MASK}y"}


def test_redact_masks_every_string_of_data_and_dataclasses_in_every_form() -> None:
    from visor.errors import ErrorInfo

    secret = "s3<cr>et"
    data = {"url": f"demo://login?p={urllib.parse.quote(secret)}", "source": f"<n text='{html.escape(secret)}'/>",
            "list": (secret, [f"'{secret}'"]), "n": 3}  # fmt: skip
    assert redact(data, [secret]) == {"url": f"demo://login?p={MASK}", "source": f"<n text='{MASK}'/>",
                                      "list": (MASK, [f"'{MASK}'"]), "n": 3}  # fmt: skip
    error = ErrorInfo(code="X", message=f"no {secret!r}", likely_cause="c", next_step="n")
    assert redact(error, [secret]) == ErrorInfo(code="X", message=f"no '{MASK}'", likely_cause="c", next_step="n")


def test_short_texts_are_never_secrets_and_longer_ones_come_first() -> None:
    assert maskable(["abc", "abcd", "abcdef", "abcd"]) == ("abcdef", "abcd")
    assert mask_text("abc abcdef", ["abc", "abcd", "abcdef"]) == f"abc {MASK}"


def test_letters_and_digits_have_one_form_and_others_a_few() -> None:
    """Every encoding keeps letters and digits: the masker looks for a secret only where its run of them is."""
    assert all(char_forms(char) == {char} for char in "aZ09")
    assert {'"', '\\"', "&quot;", "&#34;", "%22", "\\u0022"} - char_forms('"') == {"\\u0022"}  # JSON writes \"
    assert {"&#233;", "&#xe9;", "\\u00e9", "\\u00E9", "%C3%A9", "\\xe9"} <= char_forms("é")


def test_a_long_text_is_masked_in_each_form_one_encoding_deep() -> None:
    """Prose an agent typed is looked for as each output writes it (not nested), so masking it stays quick."""
    prose = 'He said "hi" & left; ' * 4
    assert len(prose) > 64
    for rendered in (json.dumps(prose), html.escape(prose), urllib.parse.quote(prose), repr(prose)):
        assert mask_text(rendered, [prose]).strip("\"'") == MASK, rendered


def test_a_short_part_a_field_kept_is_masked_as_a_whole_word_only() -> None:
    kept = KeptPart("Qz9")
    assert maskable(["Qz9", kept, "ab"]) == ("Qz9",) and isinstance(maskable([kept])[0], KeptPart)
    assert mask_text('text=Qz9 (EditText "Qz9") Qz9x aQz9 Qz9', [kept]) == 'text=••• (EditText "•••") Qz9x aQz9 •••'
    assert redact({"text": "Qz9", "other": "Qz99"}, [kept]) == {"text": MASK, "other": "Qz99"}
    # A kept part of punctuation would mask every quote or dash of a file: it is left (it says little).
    assert maskable([KeptPart('"'), KeptPart("-x")]) == ()
    # Long enough, it is masked everywhere, as any secret.
    assert mask_text("xcorrectx", [KeptPart("correct")]) == f"x{MASK}x"
    assert holds("a Qz9 b", [kept]) and not holds("Qz99", [kept])


def test_a_rendered_report_is_masked_in_its_data_only() -> None:
    """A secret that is a word of the markup leaves the markup whole; its data holds it nowhere."""
    xml = '<testsuites failures="1"><testcase name="fail it"><failure message="it failed">fail</failure>'
    xml += "<!-- fail --><![CDATA[fail]]></testcase></testsuites>"
    masked = mask_rendered(xml, ["fail"], "markup")
    assert masked == (
        f'<testsuites failures="1"><testcase name="{MASK} it"><failure message="it {MASK}ed">{MASK}</failure>'
        f"<!-- {MASK} --><![CDATA[{MASK}]]></testcase></testsuites>"
    )
    assert mask_rendered('{"fail": true, "a": [false, "not true"]}', ["true", "fail"], "json") == (
        f'{{"{MASK}": true, "a": [false, "not {MASK}"]}}'
    )


def test_a_rendered_value_whose_escape_masking_would_cut_is_masked_whole() -> None:
    """Masking `quot;b` in `a&quot;b` would leave `a&•••`, no longer XML: the whole value is masked instead."""
    assert mask_rendered('<n text="a&quot;b">a&quot;b</n>', ["quot;b"], "markup") == f'<n text="{MASK}">{MASK}</n>'
    # The secret ends with a backslash the JSON text holds as the start of `\"`: masked, the string would end early.
    text = '["abcd\\"y"]'
    assert mask_text(text, ["abcd\\"]) == f'["{MASK}"y"]'
    assert mask_rendered(text, ["abcd\\"], "json") == f'["{MASK}"]'


def test_redact_leaves_visors_vocabulary_so_a_result_still_renders() -> None:
    """A secret `fail` must not make a failed step neither failed nor passed (summary.txt crashed on it)."""
    from visor.engine.results import StepResult, Verdict

    step = redact(StepResult(0, "fail-1", "tap", Verdict.FAILED, 5, {"message": "it failed"}), ["fail"])
    assert (step.id, step.command, step.word, step.details) == (
        f"{MASK}-1",
        "tap",
        "fail",
        {"message": f"it {MASK}ed"},
    )


def test_a_suggestion_for_a_value_holding_a_secret_is_withheld() -> None:
    hint = did_you_mean("navigat3", ["navigate", "tap"])
    assert hint == "did you mean 'navigate'?"
    assert redact({"hint": hint}, ["navigat3"]) == {"hint": WITHHELD_HINT}
    assert redact({"hint": hint}, ["unrelated"]) == {"hint": hint}


def test_a_concealed_text_hashes_the_same_whatever_the_secret() -> None:
    texts = [concealer([secret])(f"Hello {secret}!") for secret in ("summer2024", "winter2024", "pw12")]
    assert texts == [f"Hello {MASK}!"] * 3
    assert concealer([])("Hello summer2024!") == "Hello summer2024!"
