"""Print the exact versions a test environment holds, and where the plugin is loaded from.

Run with the environment's own interpreter (``make versions`` does). With ``--check
CORE_SPEC ATHENA_SPEC`` it also fails unless dbt-core and dbt-athena satisfy the leg's
specs and the plugin is a non-editable install of a built wheel, so a matrix leg cannot
silently test something other than what it claims. ``--absent NAME`` (repeatable) also
fails if that distribution is installed: the dbt-core 1.12 leg runs without
dbt-core-experimental-parser, and its passing suite is the proof that nothing needs it.
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib import metadata, util
from pathlib import Path

SHOWN = [
    "dbt-athena-cross-account",
    "dbt-core",
    "dbt-core-experimental-parser",
    "dbt-athena",
    "dbt-adapters",
    "dbt-common",
    "dbt-tests-adapter",
    "boto3",
    "botocore",
    "moto",
    "pyspark",
    "pytest",
]


def version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "-"


def plugin_install() -> str:
    """'wheel' for a regular install, else what it is (editable, missing, source tree)."""
    try:
        dist = metadata.distribution("dbt-athena-cross-account")
    except metadata.PackageNotFoundError:
        return "missing"
    direct = dist.read_text("direct_url.json")
    if direct and json.loads(direct).get("dir_info", {}).get("editable"):
        return "editable"
    spec = util.find_spec("dbt_athena_cross_account")
    origin = Path(spec.origin).resolve() if spec and spec.origin else None
    site = Path(str(dist.locate_file(""))).resolve()
    if origin is None or site not in origin.parents:
        return f"loaded from {origin}, not from the installed wheel"
    return "wheel"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", nargs=2, metavar=("CORE_SPEC", "ATHENA_SPEC"))
    parser.add_argument("--absent", action="append", default=[], metavar="NAME")
    args = parser.parse_args()
    py = ".".join(map(str, sys.version_info[:3]))
    print(f"python {py}; " + "; ".join(f"{d} {version(d)}" for d in SHOWN))
    install = plugin_install()
    print(f"dbt-athena-cross-account install: {install}")
    if not args.check:
        return 0
    from packaging.requirements import Requirement

    problems = []
    for spec in args.check:
        req = Requirement(spec)
        got = version(req.name)
        if got == "-" or not req.specifier.contains(got, prereleases=True):
            problems.append(f"{req.name} {got} does not satisfy {spec}")
    for name in args.absent:
        if version(name) != "-":
            problems.append(f"{name} {version(name)} is installed; this leg must run without it")
    if install != "wheel":
        problems.append(f"the plugin is not installed from its wheel: {install}")
    for problem in problems:
        print(f"ERROR: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
