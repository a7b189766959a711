"""Which macro dbt will really call to build an opted-in Python model's code. Pure; no dbt.

dbt-athena's materializations call ``create_table_as(...)`` by bare name. A bare name
resolves in the model's own package, then the root project, then dbt-athena and dbt; so a
project's own ``create_table_as`` wins over everything. dbt-athena's ``create_table_as``
then calls ``adapter.dispatch('create_table_as', 'athena')``, which looks for
``athena__create_table_as`` (then ``default__create_table_as``) in each package of the
project's ``dispatch`` search order (no entry: the bare-name order again).

The setup check (on-run-start), the doctor and the last-step guard at job submission
(``guard.py``) all ask :func:`find_bypass`. A project macro on the way that *delegates* to
this package (it calls ``dbt_athena_cross_account.athena__create_table_as(...)``, or
``adapter.dispatch('create_table_as', 'athena')``, which is then followed) is accepted; one
that does not is the bypass, named with its file and the fix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, List, Mapping, Optional, Sequence, Tuple

PACKAGE = "dbt_athena_cross_account"
GLOBAL_PROJECT = "dbt"
PREFIXES = ("athena", "default")

_JINJA_COMMENT = re.compile(r"\{#.*?#\}", re.DOTALL)
_MACRO_HEADER = re.compile(r"\{%-?\s*macro\s+\w+\s*\(.*?\)\s*-?%\}", re.DOTALL)
_CALLS_PACKAGE = re.compile(r"\bdbt_athena_cross_account\s*\.\s*athena__create_table_as\s*\(")
_DISPATCHES = re.compile(
    r"\badapter\s*\.\s*dispatch\s*\(\s*['\"]create_table_as['\"]\s*,"
    r"\s*(?:macro_namespace\s*=\s*)?['\"]athena['\"]\s*\)"
)
_BARE_CALL = re.compile(r"(?<![\w.])athena__create_table_as\s*\(")

BYPASS = "macro '{name}' of {where} ({path}) builds the code of opted-in Python models without this package's read plan, because it {how}; dbt calls it instead of dbt_athena_cross_account's athena__create_table_as, so Spark would read the local account"
BYPASS_FIX = "make '{name}' return dbt_athena_cross_account.athena__create_table_as(temporary, relation, compiled_code, language, skip_partitioning), or adapter.dispatch('create_table_as', 'athena')(...) with the dispatch entry, or remove it"
NO_DISPATCH = "create_table_as dispatches to package '{winner}'"
HOW_STOCK = "renders dbt-athena's macro itself"
HOW_OTHER = "does not call dbt_athena_cross_account.athena__create_table_as"


@dataclass(frozen=True)
class MacroInfo:
    """One macro of the manifest: enough to follow calls by name."""

    name: str
    package: str
    path: str
    sql: str

    @property
    def code(self) -> str:
        """The macro's body without Jinja comments (a comment is not a call) and without its
        ``{% macro name(...) %}`` header (its own name is not a call either)."""
        return _MACRO_HEADER.sub("", _JINJA_COMMENT.sub("", self.sql), count=1)


@dataclass(frozen=True)
class Verdict:
    """``ok``; else ``bypass`` (a project macro on the way) or ``winner`` (the package that
    dispatch reaches instead of this one: the dispatch entry is missing)."""

    ok: bool
    bypass: Optional[MacroInfo] = None
    winner: Optional[str] = None
    reason: str = ""
    fix: str = ""


class Macros:
    """The manifest's macros by package, looked up the way dbt's macro namespace does."""

    def __init__(self, macros: Iterable[MacroInfo], root: str, internal: Sequence[str]) -> None:
        self.root = root
        self.internal = list(internal)  # dbt_athena, dbt: adapter first, as dbt orders them
        self.by_package: dict = {}
        for macro in macros:
            self.by_package.setdefault(macro.package, {})[macro.name] = macro

    def _internal(self, name: str) -> Optional[MacroInfo]:
        for package in self.internal:
            found = self.by_package.get(package, {}).get(name)
            if found:
                return found
        return None

    def bare(self, name: str, model_package: str) -> Optional[MacroInfo]:
        """``name(...)`` called by bare name while rendering a model of ``model_package``."""
        for package in dict.fromkeys([model_package, self.root]):
            found = self.by_package.get(package, {}).get(name)
            if found:
                return found
        return self._internal(name)

    def in_package(
        self, package: Optional[str], name: str, model_package: str
    ) -> Optional[MacroInfo]:
        """dispatch's lookup of ``name`` in one search-order entry (None: bare-name order)."""
        if package is None:
            return self.bare(name, model_package)
        if package == GLOBAL_PROJECT or package in self.internal:
            return self._internal(name)
        return self.by_package.get(package, {}).get(name)

    def is_project_macro(self, macro: MacroInfo) -> bool:
        return macro.package != PACKAGE and macro.package not in self.internal


def _where(macro: MacroInfo, root: str) -> str:
    kind = "project" if macro.package == root else "package"
    return f"{kind} '{macro.package}'"


def _bypassed(macros: Macros, macro: MacroInfo) -> Verdict:
    how = HOW_STOCK if "athena__create_table_as" in macro.code else HOW_OTHER
    reason = BYPASS.format(
        name=macro.name, where=_where(macro, macros.root), path=macro.path, how=how
    )
    return Verdict(False, bypass=macro, reason=reason, fix=BYPASS_FIX.format(name=macro.name))


def dispatch_winner(
    macros: Macros, search_order: Optional[Sequence[str]], model_package: str
) -> Optional[MacroInfo]:
    """The macro ``adapter.dispatch('create_table_as', 'athena')`` returns for the model."""
    order: List[Optional[str]] = list(search_order) if search_order else [None]
    for package in order:
        for prefix in PREFIXES:
            found = macros.in_package(package, f"{prefix}__create_table_as", model_package)
            if found:
                return found
    return None


def _follow(
    macros: Macros, macro: MacroInfo, search_order: Optional[Sequence[str]], model_package: str
) -> Tuple[str, Optional[MacroInfo]]:
    """How a project macro on the way continues: ``("ok"|"dispatch"|"bare"|"bypass", next)``."""
    code = macro.code
    if _CALLS_PACKAGE.search(code):
        return "ok", None
    if _DISPATCHES.search(code):
        return "dispatch", dispatch_winner(macros, search_order, model_package)
    if _BARE_CALL.search(code) and macro.name != "athena__create_table_as":  # not itself
        return "bare", macros.bare("athena__create_table_as", model_package)
    return "bypass", macro


def find_bypass(
    macros: Macros, search_order: Optional[Sequence[str]], model_package: str
) -> Verdict:
    """Whether an opted-in Python model of ``model_package`` reaches this package's macro."""
    current = macros.bare("create_table_as", model_package)
    if current is None or not macros.is_project_macro(current):
        current = dispatch_winner(macros, search_order, model_package)  # dbt-athena's dispatch
    seen = set()
    while current is not None and macros.is_project_macro(current):
        key = (current.package, current.name)
        step, after = _follow(macros, current, search_order, model_package)
        if step == "ok":
            return Verdict(True)
        if step == "bypass" or key in seen:  # a loop renders no read plan either
            return _bypassed(macros, current)
        if step == "bare" and (
            after is None or (after.package != PACKAGE and not macros.is_project_macro(after))
        ):
            return _bypassed(macros, current)  # it renders dbt-athena's macro by bare name
        seen.add(key)
        current = after
    if current is not None and current.package == PACKAGE:
        return Verdict(True)
    package = "dbt_athena" if current is None else current.package
    return Verdict(False, winner=package, reason=NO_DISPATCH.format(winner=package))


def macro_infos(manifest_macros: Mapping[str, object]) -> List[MacroInfo]:
    """The create_table_as family of a dbt manifest's ``macros`` (anything with those attrs)."""
    wanted = {"create_table_as", *(f"{p}__create_table_as" for p in PREFIXES)}
    found = []
    for macro in manifest_macros.values():
        name = str(getattr(macro, "name", ""))
        if name in wanted:
            found.append(
                MacroInfo(
                    name,
                    str(getattr(macro, "package_name", "")),
                    str(getattr(macro, "original_file_path", "")),
                    str(getattr(macro, "macro_sql", "")),
                )
            )
    return found
