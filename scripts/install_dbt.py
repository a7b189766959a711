"""Install dbt-core and dbt-athena (plus any other requirements) into the environment of the
interpreter that runs this script, also where dbt-core 1.12 cannot be installed by plain pip.

    python scripts/install_dbt.py CORE_SPEC ATHENA_SPEC [REQUIREMENT ...]
    python scripts/install_dbt.py "dbt-core~=1.12.0" "dbt-athena~=1.11.0"

The Makefile (so `make test` and `.ci/run`) sets up every test venv with it, and a user can
run it from a clone of this repository with their virtualenv's python.

How:
1. ``pip download --no-deps`` the dbt-core and dbt-athena releases the two specs select, and
   read their ``Requires-Dist``.
2. If that dbt-core does not require a package listed in ``UNINSTALLABLE``: one ordinary
   ``pip install`` of everything, with the two releases as constraints (the way users install).
3. Otherwise (dbt-core 1.12 requires ``dbt-core-experimental-parser``, whose build downloads a
   wheel from GitHub, so it fails without internet access):
   a. install dbt-core's requirements minus that package, dbt-athena's requirements minus
      dbt-core, and the other requirements, in one pip resolution (dbt-core and dbt-athena
      pinned as constraints, so nothing can pull in another release);
   b. ``pip install --no-deps`` that dbt-core and that dbt-athena. They must come last: once
      dbt-core is installed, pip re-reads its requirements whenever something that depends
      on it is installed, and fails on the missing one.
   dbt-core 1.12 itself never imports the package (a search of its wheel finds no import;
   its ``--use-experimental-parser`` path calls ``dbt_extractor``). The CI leg that installs
   1.12 this way runs the full test suite, which is the proof that nothing needs it.
4. ``pip check``: fails on any problem except the left-out package(s).

The other requirements must not depend on dbt-core (this project's plugin does: install it
afterwards with ``pip install --no-deps``; its own requirements all come with dbt-athena).
Prints one line saying which way it installed, then the installed dbt-core and dbt-athena.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import zipfile
from email.parser import Parser
from pathlib import Path
from typing import List, Sequence, Tuple

# Packages that a dbt-core release may require but that cannot be installed from a package
# index alone, with the reason the install goes on without them.
UNINSTALLABLE = {
    "dbt-core-experimental-parser": (
        "its build downloads a wheel from GitHub (fails without internet access); "
        "dbt-core never imports it"
    ),
}
PIP = [sys.executable, "-m", "pip"]
NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> str:
    match = NAME.match(requirement)
    if not match:
        raise SystemExit(f"install_dbt: cannot read a package name from {requirement!r}")
    return canonical(match.group(1))


def run(args: Sequence[str]) -> None:
    print("+ pip " + " ".join(args[3:]), flush=True)
    proc = subprocess.run(list(args))
    if proc.returncode:
        raise SystemExit(f"install_dbt: pip failed (exit {proc.returncode})")


def release(spec: str, workdir: Path) -> Tuple[str, List[str]]:
    """(version, Requires-Dist) of the wheel pip picks for ``spec``."""
    out = workdir / requirement_name(spec)
    out.mkdir()
    run([*PIP, "download", "-q", "--no-deps", "--only-binary=:all:", "-d", str(out), spec])
    wheels = sorted(out.glob("*.whl"))
    if len(wheels) != 1:
        raise SystemExit(f"install_dbt: expected one wheel for {spec!r}, got {wheels}")
    with zipfile.ZipFile(wheels[0]) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        meta = Parser().parsestr(zf.read(name).decode("utf-8"))
    return meta["Version"], list(meta.get_all("Requires-Dist") or [])


def pip_check(left_out: Sequence[str]) -> None:
    proc = subprocess.run([*PIP, "check"], capture_output=True, text=True)
    problems = [
        line
        for line in proc.stdout.splitlines()
        if line.strip()
        and not line.startswith("No broken requirements")
        and not any(f"requires {name}, which is not installed" in line for name in left_out)
    ]
    if problems:
        raise SystemExit("install_dbt: pip check failed:\n" + "\n".join(problems))


def main(argv: List[str]) -> int:
    if len(argv) < 2 or argv[0].startswith("-"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    core_spec, athena_spec, *others = argv
    with tempfile.TemporaryDirectory(prefix="install-dbt-") as tmp:
        workdir = Path(tmp)
        core_version, core_requires = release(core_spec, workdir)
        athena_version, athena_requires = release(athena_spec, workdir)
        pins = [f"dbt-core=={core_version}", f"dbt-athena=={athena_version}"]
        constraints = workdir / "constraints.txt"
        constraints.write_text("\n".join([core_spec, athena_spec, *pins]) + "\n")
        left_out = sorted({requirement_name(r) for r in core_requires} & set(UNINSTALLABLE))
        if not left_out:
            print(f"install_dbt: dbt-core {core_version}, dbt-athena {athena_version}: plain pip")
            run([*PIP, "install", "-q", "-c", str(constraints), *pins, *others])
        else:
            for name in left_out:
                print(
                    f"install_dbt: dbt-core {core_version} requires {name}, which is left out: "
                    f"{UNINSTALLABLE[name]}"
                )
            deps = [r for r in core_requires if requirement_name(r) not in left_out]
            deps += [r for r in athena_requires if requirement_name(r) != "dbt-core"]
            run([*PIP, "install", "-q", "-c", str(constraints), *deps, *others])
            run([*PIP, "install", "-q", "--no-deps", *pins])
    pip_check(left_out)
    print(f"install_dbt: installed dbt-core {core_version}, dbt-athena {athena_version}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
