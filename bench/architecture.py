"""Figures of the code's shape, for the notes on how it changes (no goal: a reading, not a bench).

Modules per package, `Any` per 1,000 lines, public `dict[str, Any]` signatures, and function-level imports (with
and without a comment saying why):

    python bench/architecture.py [PACKAGE_DIR] [-v]

`Any` is counted as a word (code and docstrings alike); a function-level import counts as explained when the line
above it is a comment or the line itself holds one. `-v` lists the signatures and the unexplained imports.
"""

from __future__ import annotations

import ast
import collections
import pathlib
import re
import sys


def _package(relative: pathlib.Path) -> str:
    """Return the package a module is counted in: a slice of ext/ on its own, else the top package."""
    parts = relative.parts
    if len(parts) > 3 and parts[1] == "ext":
        return "/".join(parts[:3])
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def _late_imports(node: ast.AST, lines: list[str]) -> list[tuple[int, bool]]:
    """Return each import inside a function, with whether a comment says why."""
    found = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Import | ast.ImportFrom) and not (
            isinstance(sub, ast.ImportFrom) and sub.module == "__future__"
        ):
            above = lines[sub.lineno - 2].strip() if sub.lineno >= 2 else ""
            found.append((sub.lineno, above.startswith("#") or "#" in lines[sub.lineno - 1]))
    return found


def main() -> int:
    """Print the figures."""
    root = pathlib.Path(next((arg for arg in sys.argv[1:] if not arg.startswith("-")), "visor"))
    modules: collections.Counter[str] = collections.Counter()
    total_lines = anys = 0
    signatures: list[str] = []
    late: list[tuple[str, bool]] = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root.parent)
        modules[_package(relative)] += 1
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        total_lines += len(lines)
        anys += len(re.findall(r"\bAny\b", text))
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if not node.name.startswith("_") or node.name.startswith("__"):
                written = (ast.get_source_segment(text, node.args) or "") + (
                    ast.get_source_segment(text, node.returns) or "" if node.returns else ""
                )
                if "dict[str, Any]" in written:
                    signatures.append(f"{relative}:{node.lineno} {node.name}")
            late += [(f"{relative}:{line}", said) for line, said in _late_imports(node, lines)]
    print("modules per package:")
    for name, count in sorted(modules.items()):
        print(f"  {name}: {count}")
    print(f"modules {sum(modules.values())}, lines {total_lines}")
    print(f"Any {anys} ({anys / total_lines * 1000:.1f} per 1,000 lines)")
    print(f"public dict[str, Any] signatures {len(signatures)}")
    print(f"function-level imports {len(late)}, without a reason {sum(1 for _, said in late if not said)}")
    if "-v" in sys.argv:
        for signature in signatures:
            print(f"  signature {signature}")
        for where, said in late:
            if not said:
                print(f"  import {where}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
