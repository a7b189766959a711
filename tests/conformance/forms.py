"""Running the column forms of conformance entries (column_forms.py) through the emulator's
Athena API, and comparing each with the entry's literal form.

Four forms per entry, each reading the entry's lifted literals from one row:

* ``hive``: a Hive table (JSON lines; its timestamps are timestamp(3));
* ``iceberg``: an Iceberg table (written by pyiceberg; timestamp(6), no tinyint/smallint);
* ``view``: ``CREATE VIEW ... AS SELECT * FROM <the hive table>``, made through the Athena
  API;
* ``cte``: ``WITH t AS (SELECT * FROM <the hive table>) ... FROM t``, dbt's import CTE.

The tables are made with the emulator's own catalog API (``emulator.catalog.create_table``,
what seeding uses), never with its CTAS, all of them before the first query. A form's
outcome is classified against the entry's expected answer exactly as the literal form's is
(harness.classify, rows_equal), except that ``type`` is not checked: a column of varchar is
``varchar``, never the literal's ``varchar(3)``, so Trino's corpus's type checks
(harness.check_types) apply to the literal form only. A form *disagrees* when its outcome
(MATCH, WRONG, ERROR clean, ERROR other, SUCCESS-ON-ERROR) is not the literal form's, taken
before its type check.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

from tests.conformance.column_forms import HIVE, ICEBERG, Lifting, lift
from tests.conformance.harness import Example, Outcome, _run, classify
from tests.conformance.ledger import outcome_key

FORMS = ("hive", "iceberg", "view", "cte")
DATABASE = "conformance_forms"
#: the table format each form reads
FORM_KIND = {"hive": HIVE, "iceberg": ICEBERG, "view": HIVE, "cte": HIVE}


@dataclass
class Entry:
    """One entry's liftings (by table format) and the relations made for it."""

    number: int
    example: Example
    liftings: Dict[str, Lifting]
    relations: Dict[str, str] = field(default_factory=dict)  # form -> relation
    problems: Dict[str, str] = field(default_factory=dict)  # form -> why it could not be made

    def lifting(self, form: str) -> Lifting:
        return self.liftings[FORM_KIND[form]]

    def query(self, form: str) -> Optional[str]:
        """The form's statement (None: not applicable, or its relation could not be made)."""
        lifting = self.lifting(form)
        if not lifting.applicable or form not in self.relations:
            return None
        if form == "cte":
            return lifting.cte_query(self.relations[form])
        return lifting.query(self.relations[form])


def plan(examples: Sequence[Example]) -> List[Entry]:
    """Each entry's liftings for a Hive and an Iceberg table (pure)."""
    return [
        Entry(i, e, {kind: lift(e.sql, kind) for kind in (HIVE, ICEBERG)})
        for i, e in enumerate(examples)
    ]


def make_relations(emulator: Any, athena: Any, entries: Sequence[Entry]) -> None:
    """The tables (catalog API) and views (CREATE VIEW through Athena) of every applicable
    entry, in DATABASE of the emulator's local account. A table whose row the catalog
    refuses leaves its forms out, with the reason in ``entry.problems``."""
    catalog = emulator.catalog
    account = catalog.local_account
    catalog.ensure_database(account, DATABASE)
    for entry in entries:
        for kind, prefix in ((HIVE, "h"), (ICEBERG, "i")):
            lifting = entry.liftings[kind]
            if not lifting.applicable:
                continue
            table = f"{DATABASE}.{prefix}{entry.number}"
            forms = [f for f in FORMS if FORM_KIND[f] == kind]
            try:
                catalog.create_table(
                    account,
                    DATABASE,
                    table.split(".")[1],
                    lifting.columns(),
                    [lifting.row()],
                    table_format=kind,
                )
            except (ValueError, TypeError, NotImplementedError) as exc:
                entry.problems.update({f: f"the table could not be made: {exc}" for f in forms})
                continue
            entry.relations.update({f: table for f in forms if f != "view"})
            if "view" in forms:
                view = f"{DATABASE}.v{entry.number}"
                run = _run(athena, f"CREATE VIEW {view} AS SELECT * FROM {table}")
                if run.succeeded:
                    entry.relations["view"] = view
                else:
                    entry.problems["view"] = f"CREATE VIEW failed: {run.reason}"


def run_form(athena: Any, entry: Entry, form: str) -> Optional[Outcome]:
    """The form's outcome, classified as the literal form's is but without the type check
    (None: the form is not applicable)."""
    sql = entry.query(form)
    if sql is None:
        return None
    example = dataclasses.replace(entry.example, sql=sql, type=None)
    return classify(example, _run(athena, sql))


@dataclass
class FormResult:
    """An entry's literal outcome and its column forms' outcomes (None: not applicable).
    ``values``: the literal form's outcome before its type check (Trino's ``type:``), which
    the forms are compared with: a column form has no type check of its own."""

    entry: Optional[Entry]  # None: the column forms were not run
    literal: Outcome
    forms: Dict[str, Optional[Outcome]]
    values: Optional[Outcome] = None  # None: the same as literal

    def disagreeing(self) -> List[str]:
        """The forms whose outcome is not the literal form's (its values')."""
        want = outcome_key(self.values or self.literal)
        return [form for form, o in self.forms.items() if o is not None and outcome_key(o) != want]
