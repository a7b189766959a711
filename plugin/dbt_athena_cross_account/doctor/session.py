"""``session`` rows: each Python model's Spark properties, from its engine_config (no AWS call)."""

from __future__ import annotations

from typing import Iterable, List

from dbt_athena_cross_account.doctor.rows import FAIL, PASS, WARN, Check, ModelFacts

KIND = "session"
CATALOG_ID_PROPERTY = "spark.hadoop.hive.metastore.glue.catalogid"
SEPARATOR_PROPERTY = "spark.hadoop.aws.glue.catalog.separator"
SEPARATOR = "/"
_CATALOG_ID_KEYS = {CATALOG_ID_PROPERTY, CATALOG_ID_PROPERTY[len("spark.hadoop.") :]}

REDIRECT = (
    "engine_config SparkProperties sets {key}={value}: "
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
SEPARATOR_FIX = "remove {key} from the model's engine_config SparkProperties"
CLEAN = "keeps the '/' separator; no glue.catalogid override"


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
        fix = SEPARATOR_FIX.format(key=SEPARATOR_PROPERTY)
        rows.append(Check(WARN, KIND, model.unique_id, reason, fix))
    if model.opted_in and not rows:
        rows.append(Check(PASS, KIND, model.unique_id, CLEAN))
    return rows


def check_session(models: Iterable[ModelFacts]) -> List[Check]:
    """FAIL for a glue.catalogid override (any model), WARN for a separator override."""
    return [row for model in models for row in _model_rows(model)]
