"""A fixed sample of the docs corpus's column forms on the emulator (forms.py): SAMPLE
entries (seed SEED) among those whose literals a Hive table can hold, each run as its
literal form and as its four column forms (a Hive table, an Iceberg table, a view over the
Hive table, ``WITH t AS (SELECT * FROM <hive table>)``). A form fails when its outcome is
not the literal form's, unless KNOWN lists it with the reason. The full run of both corpora
is ``make conformance`` (bench/conformance.py --forms)."""

from __future__ import annotations

from typing import Dict, Iterator, Tuple

import pytest

from athena_spark_emulator import Emulator
from tests.conformance.column_forms import HIVE, lift
from tests.conformance.forms import FORMS, Entry, make_relations, plan, run_form
from tests.conformance.harness import Outcome, load_corpus, run_example_with_values, sample
from tests.conformance.ledger import outcome_key

SAMPLE = 60
SEED = 0
EXAMPLES = sample([e for e in load_corpus("docs") if lift(e.sql, HIVE).applicable], SAMPLE, SEED)
#: (entry id, form) -> why its outcome is not the literal form's: a clean NOT_SUPPORTED of
#: the column form (types:51: an unclean Spark error), whose cause is in the function modules
_REFUSED = {
    "bitwise/bitwise:0": "bit_count(x, bits) of a bits column: functions/bitwise.py takes "
    "bits as a literal only (Trino takes any bigint)",
    "string/string:23": "split(s, delimiter, limit) of a delimiter column: functions/string.py "
    "takes a literal delimiter only",
    "types/types:51": "ROW(c0, c1)[1] of columns: Spark's FIELD_NOT_FOUND (no struct field "
    "lit_0 in field0, field1), an unclean error: the row subscript of functions/row.py and "
    "query_shapes.row_subscript names the fields after the columns",
    "types/types:48": "typeof(MAP(k, v)) of array columns: functions/conversion.py names the "
    "type of constructors of literals only (a varchar column's type has no length)",
}
KNOWN: Dict[Tuple[str, str], str] = {
    (entry, form): reason for entry, reason in _REFUSED.items() for form in FORMS
}


class Forms:
    def __init__(self, emulator: Emulator) -> None:
        self.athena = emulator.client("athena")
        self.entries = {e.example.id: e for e in plan(EXAMPLES)}
        make_relations(emulator, self.athena, list(self.entries.values()))
        self.literal: Dict[str, Outcome] = {}

    def entry(self, example_id: str) -> Entry:
        return self.entries[example_id]

    def literal_outcome(self, entry: Entry) -> Outcome:
        key = entry.example.id
        if key not in self.literal:
            self.literal[key] = run_example_with_values(self.athena, entry.example)[0]
        return self.literal[key]


@pytest.fixture(scope="module")
def forms() -> Iterator[Forms]:
    with Emulator(executor="spark") as emu:
        emu.prepare()
        yield Forms(emu)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("example_id", [e.id for e in EXAMPLES])
def test_column_form_gives_the_literal_forms_answer(
    forms: Forms, example_id: str, form: str
) -> None:
    entry = forms.entry(example_id)
    if entry.query(form) is None:
        reason = entry.problems.get(form) or entry.lifting(form).not_applicable
        assert form == "iceberg" and not entry.problems.get(form), reason
        pytest.skip(f"not applicable: {reason}")
    literal = forms.literal_outcome(entry)
    outcome = run_form(forms.athena, entry, form)
    assert outcome is not None
    if outcome_key(outcome) == outcome_key(literal):
        assert (example_id, form) not in KNOWN, "it agrees now: remove it from KNOWN"
        return
    if (example_id, form) in KNOWN:
        pytest.xfail(KNOWN[(example_id, form)])
    pytest.fail(
        f"{form}: {outcome_key(outcome)}, the literal form {outcome_key(literal)}\n"
        f"sql:     {entry.query(form)}\n"
        f"columns: {entry.lifting(form).athena_types()} row {entry.lifting(form).row()}\n"
        f"literal: {literal.actual}\nactual:  {outcome.actual}",
        pytrace=False,
    )
