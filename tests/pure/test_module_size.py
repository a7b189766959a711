"""No module under plugin/ is longer than MAX_LINES, so that a module is read in one
sitting and a function's home is found by its name, not by scrolling.

The one exception is a module that is one table of data (a mapping, a list of rules), which
reads row by row at any length: it is named in DATA_TABLES, and its docstring says that it
is one table of data, so that the exception is visible where the module is read."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List

from tests.conftest import REPO_ROOT

MAX_LINES = 800
#: {path under plugin/: why it is one table of data}. Its docstring must contain
#: DATA_TABLE_STATEMENT.
DATA_TABLES: Dict[str, str] = {}
DATA_TABLE_STATEMENT = "one table of data"


def module_lengths() -> Dict[str, int]:
    root = REPO_ROOT / "plugin"
    return {
        path.relative_to(root).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted(root.rglob("*.py"))
    }


def says_it_is_a_data_table(path: Path) -> bool:
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return DATA_TABLE_STATEMENT in " ".join(docstring.split())


def test_the_modules_are_found() -> None:
    lengths = module_lengths()
    assert "athena_spark_emulator/sql/functions/regexp.py" in lengths
    assert "dbt_athena_cross_account/__init__.py" in lengths


def test_no_module_is_longer_than_the_limit() -> None:
    too_long: List[str] = [
        f"{name}: {lines} lines"
        for name, lines in module_lengths().items()
        if lines > MAX_LINES and name not in DATA_TABLES
    ]
    assert too_long == [], (
        f"modules over {MAX_LINES} lines: split them by responsibility, or, for one table "
        f"of data, add them to DATA_TABLES and say so in their docstring"
    )


def test_each_data_table_says_so_in_its_docstring() -> None:
    lengths = module_lengths()
    for name in DATA_TABLES:
        assert name in lengths, f"{name} is in DATA_TABLES but not under plugin/"
        assert says_it_is_a_data_table(REPO_ROOT / "plugin" / name), (
            f"{name}: its docstring must say it is {DATA_TABLE_STATEMENT}"
        )


def test_the_statement_is_recognised(tmp_path: Path) -> None:
    """The docstring check reads the statement across line breaks."""
    table = tmp_path / "rules.py"
    table.write_text('"""The rules, as\none table of data."""\nRULES = {}\n')
    code = tmp_path / "code.py"
    code.write_text('"""Some code."""\nRULES = {}  # one table of data\n')
    assert says_it_is_a_data_table(table)
    assert not says_it_is_a_data_table(code)
