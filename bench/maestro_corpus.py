"""How much of a corpus of real Maestro flows converts into visor scenarios, and what is left out most.

    python bench/maestro_corpus.py CORPUS [--json FILE] [--run]

CORPUS holds `manifest.tsv` (repo, path, commit, kind per line) and `flows/<owner>__<repo>/<path>`: flows written
by other people, collected from public repositories and kept outside this repository (`bench/maestro_corpus.tsv`
lists the ones measured, each at its commit). Each `flow` row is converted
as `visor import maestro` converts it, its includes read from its repository's folder, and counted as:

- full: nothing left out, and the scenario validates;
- partly: some commands or options left out (each named with its file and line);
- nothing: no command converted (the scenario is a placeholder);
- refused: Maestro's own flow reader refuses it too (an unknown command or option, a value of the wrong kind,
  each named): it is written invalid, and runs nowhere;
- invalid: the flow cannot be read as a Maestro flow (its YAML does not parse, or it is no flow);
- unvalid: the scenario written does not pass `visor validate` (an importer bug, its errors given);
- crash: the importer raised something other than a visor error (a bug).

What Maestro reads and passes over (an unknown header key, inputText's id) is converted as Maestro runs it: nothing is
left out, and the note is counted apart. The share converted is also given of the flows a phone runs: without the
refused and invalid ones, and without the flows whose only gap is a WebView's DevTools hierarchy
(`androidWebViewHierarchy`, which visor does not read). A web flow (a `url` header) converts for the web
platform. The left-out commands are ranked by occurrences, with the reasons given most often.

With `--run`, the flows of the apps `bench/maestro_models/` holds a model of are imported as `visor import maestro`
imports their folder, run on the simulated phone with that model, and benchmarked over 20 runs: each says whether
it passed and its determinism score.
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback

import visor.api  # noqa: F401  -- plugs the agent tools in as commands, as `visor import` has them
from visor.errors import VisorError
from visor.ext.maestro.convert import convert_flow, scenario_text
from visor.inputs.data import parse_data
from visor.inputs.parameters import substitute
from visor.scenario.validate import validate_document

#: The apps modeled for the simulated phone: repository, the folder `visor import maestro` reads, the model, the
#: values the flows' parameters are given.
MODELED = (
    ("infinitered/ignite", "boilerplate/.maestro", "ignite.app.yaml", {"MAESTRO_APP_ID": "com.ignite.boilerplate"}),
)
MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "maestro_models")
RUNS = 20

#: Header keys of what visor does not read of a page: a WebView as Chrome DevTools sees it.
WEB = ("androidWebViewHierarchy",)


def classify(corpus: str, repo: str, path: str) -> tuple[str, list[dict[str, object]], str]:
    """Convert one flow; return its class, what was left out (and what Maestro ignores), and an error's text."""
    root = os.path.join(corpus, "flows", repo.replace("/", "__"))
    try:
        converted = convert_flow(os.path.join(root, path), root=root, relative=path)
    except VisorError as exc:
        return "invalid", [], exc.message
    except Exception:  # counting the importer's bugs is the point
        return "crash", [], traceback.format_exc(limit=3)
    left = [dict(item) for item in converted.left_out]
    left += [{**item, "ignored": True} for item in converted.ignored]
    if any(item.get("refused") for item in left):
        return "refused", left, ""
    steps = converted.scenario["steps"]
    if len(steps) == 1 and steps[0]["id"] == "01-nothing":
        return "nothing", left, ""
    written = parse_data(scenario_text(path, converted).encode(), "converted.yaml")
    document, _ = substitute(written, converted.env)
    errors = [issue.message for issue in validate_document(document).issues if issue.is_error]
    if errors:  # a converted scenario visor refuses is the importer's bug
        return "unvalid", left, "; ".join(errors[:3])
    return ("partly" if converted.left_out else "full"), left, ""


def main() -> int:
    """Convert every flow of the corpus and print the counts and the gaps."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("--json", help="Write every flow's class and left-outs here.")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--run", action="store_true", help="Run and benchmark the flows of the modeled apps.")
    args = parser.parse_args()
    if args.run:
        return run_modeled(args.corpus)
    with open(os.path.join(args.corpus, "manifest.tsv"), encoding="utf-8") as handle:
        rows = [row for row in csv.reader(handle, delimiter="\t") if len(row) >= 4 and row[3] == "flow"]
    classes: collections.Counter[str] = collections.Counter()
    gaps: collections.Counter[str] = collections.Counter()
    reasons: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    flows_with: collections.Counter[str] = collections.Counter()
    report = []
    for repo, path, *_ in rows:
        kind, left, error = classify(args.corpus, repo, path)
        classes[kind] += 1
        missing = [item for item in left if not item.get("ignored") and not item.get("refused")]
        for name in {str(item["command"]) for item in missing}:
            flows_with[name] += 1
        for item in missing:
            gaps[str(item["command"])] += 1
            reasons[str(item["command"])][str(item["reason"])[:90]] += 1
        report.append({"repo": repo, "path": path, "class": kind, "left_out": left, "error": error})
    total = sum(classes.values())
    print(f"{total} flows from {len({row[0] for row in rows})} repositories")
    for kind in ("full", "partly", "nothing", "refused", "invalid", "unvalid", "crash"):
        print(f"  {kind:8} {classes[kind]:4}  {classes[kind] / total:6.1%}")
    web = [item for item in report if item["class"] in ("partly", "nothing") and _web(item["left_out"])]
    runs = total - classes["refused"] - classes["invalid"] - len(web)
    aside = f"{len(web)} flows needing a DevTools hierarchy and the refused and invalid left aside"
    print(f"\nof the {runs} flows Maestro runs ({aside}): {classes['full']} convert fully, "
          f"{classes['full'] / max(runs, 1):.1%}")  # fmt: skip
    ignored = collections.Counter(
        str(i["reason"])[:90] for item in report for i in item["left_out"] if i.get("ignored")
    )
    refused = collections.Counter(
        str(i["reason"])[:90] for item in report for i in item["left_out"] if i.get("refused")
    )
    for title, counts in (("Maestro refuses", refused), ("Maestro passes over (converted as it runs)", ignored)):
        print(f"\n{title}, by occurrences:")
        for reason, times in counts.most_common(args.top):
            print(f"  {times:4}  {reason}")
    print(f"\nleft out, by occurrences (flows with it), top {args.top}:")
    for name, count in gaps.most_common(args.top):
        reason, times = reasons[name].most_common(1)[0]
        print(f"  {count:4} ({flows_with[name]:3})  {name}: {reason} [{times}x]")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=1)
    for item in [item for item in report if item["class"] == "unvalid"][:5]:
        print(f"\nunvalid: {item['repo']} {item['path']}: {item['error']}", file=sys.stderr)
    crashes = [item for item in report if item["class"] == "crash"]
    for item in crashes[:5]:
        print(f"\ncrash: {item['repo']} {item['path']}\n{item['error']}", file=sys.stderr)
    return 0


def _visor(*args: str, cwd: str) -> dict[str, object]:
    """Run visor in a process of its own (as a user does) and return its envelope."""
    done = subprocess.run([sys.executable, "-m", "visor", *args], cwd=cwd, capture_output=True, text=True, check=False)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def run_modeled(corpus: str) -> int:
    """Import, run and benchmark the flows of each modeled app; print one line per flow; 1 if one fails."""
    failed = 0
    for repo, folder, model, values in MODELED:
        with tempfile.TemporaryDirectory() as work:
            source = os.path.join(corpus, "flows", repo.replace("/", "__"), folder)
            imported = _visor("import", "maestro", source, "--output", work, cwd=work)
            shutil.copy(os.path.join(MODELS, model), work)
            open(os.path.join(work, "visor.toml"), "w").close()
            rows = imported["data"]["imported"]  # type: ignore[index]
            for row in rows:
                if "scenario" not in row or os.path.basename(row["flow"]).startswith("_"):
                    continue  # a shared flow, included by the others
                given = [f"-e{key}={value}" for key, value in values.items()]
                given += ["--env-file", row["env_file"]] if "env_file" in row else []
                common = [row["scenario"], "--runtime", "sim", "--app", model, *given]
                ran = _visor("run", *common, "--output", "out", cwd=work)
                bench = _visor("benchmark", *common, "--runs", str(RUNS), cwd=work)
                status = ran["data"]["run"]["status"]  # type: ignore[index]
                passed = bench["data"]["pass"]  # type: ignore[index]
                score = bench["data"]["determinismScore"]  # type: ignore[index]
                failed += status != "ok" or not passed
                flow = os.path.relpath(row["flow"], source)
                print(f"{repo} {flow}: run {status}, benchmark {score} over {RUNS} runs")
    return 1 if failed else 0


def _web(left: list[dict[str, object]]) -> bool:
    """Say whether a flow's only gap is a WebView's DevTools hierarchy (`androidWebViewHierarchy`)."""
    commands = {item["command"] for item in left if not item.get("ignored")}
    return commands == {"androidWebViewHierarchy"}


if __name__ == "__main__":
    raise SystemExit(main())
