"""``session`` rows: each Python model's Spark properties, from its engine_config (no AWS call).

A model's Spark properties are its engine_config's ``SparkProperties`` (PySpark engine v3)
and its ``Classifications`` entry named ``spark-defaults`` (Athena's Apache Spark 3.5
engine, where dbt-athena's Spark Connect path sends them: dbt-adapters pull request #1874).
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Mapping

from dbt_athena_cross_account.doctor.rows import Check, ModelFacts
from dbt_athena_cross_account.errors import FAIL, PASS, WARN

KIND = "session"
CATALOG_ID_PROPERTY = "spark.hadoop.hive.metastore.glue.catalogid"
SEPARATOR_PROPERTY = "spark.hadoop.aws.glue.catalog.separator"
SEPARATOR = "/"
_CATALOG_ID_KEYS = {CATALOG_ID_PROPERTY, CATALOG_ID_PROPERTY[len("spark.hadoop.") :]}

REDIRECT = (
    "engine_config sets {key}={value}: "
    "that makes account {value}'s Glue catalog the default for every read AND write of the "
    "session, so the model's own table would be created in the other account"
)
REDIRECT_FIX = (
    "remove {key} from the model's engine_config and set spark_cross_account_catalog: true; "
    "sources in the other account are then read through their registered data catalog"
)
SEPARATOR_OVERRIDE = (
    "engine_config overrides {key} with {value!r}; "
    "the generated `<account>/<database>` names need '/', "
    "so cross-account reads hit the local catalog"
)
SEPARATOR_FIX = "remove {key} from the model's engine_config ({where})"
CLEAN = "keeps the '/' separator; no glue.catalogid override"
WHERE = "SparkProperties, or the spark-defaults Properties of its Classifications"
SPARK_DEFAULTS = "spark-defaults"


def spark_properties(engine_config: Any) -> Dict[str, Any]:
    """The Spark properties an engine_config gives the session: ``SparkProperties``, then
    the ``Properties`` of each ``Classifications`` entry named ``spark-defaults``."""
    if not isinstance(engine_config, Mapping):
        return {}
    found: Dict[str, Any] = dict(engine_config.get("SparkProperties") or {})
    for entry in engine_config.get("Classifications") or []:
        if isinstance(entry, Mapping) and entry.get("Name") == SPARK_DEFAULTS:
            found.update(entry.get("Properties") or {})
    return found


def _model_rows(model: ModelFacts) -> List[Check]:
    props = {str(k).strip(): v for k, v in (model.spark_properties or {}).items()}
    rows = [
        Check(
            FAIL,
            KIND,
            model.unique_id,
            REDIRECT.format(key=key, value=props[key]),
            REDIRECT_FIX.format(key=key),
        )
        for key in props
        if key.lower() in _CATALOG_ID_KEYS
    ]
    separator = props.get(SEPARATOR_PROPERTY, SEPARATOR)
    if model.opted_in and str(separator or "") != SEPARATOR:
        reason = SEPARATOR_OVERRIDE.format(key=SEPARATOR_PROPERTY, value=separator)
        fix = SEPARATOR_FIX.format(key=SEPARATOR_PROPERTY, where=WHERE)
        rows.append(Check(WARN, KIND, model.unique_id, reason, fix))
    if model.opted_in and not rows:
        rows.append(Check(PASS, KIND, model.unique_id, CLEAN))
    return rows


def check_session(models: Iterable[ModelFacts]) -> List[Check]:
    """FAIL for a glue.catalogid override (any model), WARN for a separator override."""
    return [row for model in models for row in _model_rows(model)]
