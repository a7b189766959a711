"""The emulator's Athena functions have one home each, named after their page of Trino's
function documentation: ``sql/functions/<page>.py`` registers the page's entries, and
``tests/conformance/examples/<page>.yml`` holds the page's documented examples.

A page too long for one module has parts named ``<page>_<part>.py`` beside it; ``lambda_.py``
is ``lambda.md``'s (``lambda`` is a Python keyword). The example files not named after a
function page are named after the Trino page of the language they come from."""

from __future__ import annotations

from typing import Set

from tests.conftest import REPO_ROOT

FUNCTIONS = REPO_ROOT / "plugin" / "athena_spark_emulator" / "sql" / "functions"
EXAMPLES = REPO_ROOT / "tests" / "conformance" / "examples"
#: modules of sql/functions/ that are no page: the table and the package
NOT_PAGES = {"__init__", "table"}
#: the parts of a page too long for one module
PARTS = {
    "conversion_types",
    "datetime_zoned",
    "datetime_time",
    "datetime_format",
    "datetime_tstz",
    "json_cast",
    "json_path",
    "json_table",
}
#: example files of Trino's language pages (language/types.md, sql/values.md,
#: appendix/from-hive.md), which no function module is named after
LANGUAGE_PAGES = {"types", "values", "from_hive"}


def pages() -> Set[str]:
    modules = {p.stem for p in FUNCTIONS.glob("*.py")} - NOT_PAGES - PARTS
    return {m.rstrip("_") for m in modules}


def test_every_part_belongs_to_a_page() -> None:
    modules = {p.stem for p in FUNCTIONS.glob("*.py")}
    assert modules >= PARTS
    assert all(part.split("_")[0] in pages() for part in PARTS)


def test_every_page_has_its_examples_and_every_example_file_its_page() -> None:
    files = {p.stem for p in EXAMPLES.glob("*.yml")}
    assert {"regexp", "math", "json", "select"} <= pages()
    assert sorted(pages() - files) == []
    assert sorted(files - pages() - LANGUAGE_PAGES) == []
