"""``registration`` rows: athena:GetDataCatalog says whether a name is a GLUE data catalog
with a plain 12-digit catalog-id, and so which account owns the tables read through it."""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence, Tuple, Union

from dbt_athena_cross_account import fixes
from dbt_athena_cross_account.doctor.aws_errors import AwsError
from dbt_athena_cross_account.doctor.calls import Aws
from dbt_athena_cross_account.doctor.rows import Check
from dbt_athena_cross_account.errors import FAIL, PASS
from dbt_athena_cross_account.resolver import classify, default_catalog_id

KIND = "registration"
SKIPPED = " ({n} table check(s) skipped until this passes)"
REGISTERED = "GLUE data catalog, catalog-id {account}"
DENIED = "athena:GetDataCatalog was denied ({error}){tail}"
DENIED_FIX = (
    "grant athena:GetDataCatalog on arn:aws:athena:{region}:<your account>:datacatalog/{name} "
    "to the role in your dbt profile"
)
THROTTLED = "athena:GetDataCatalog was throttled ({code}){tail}"
THROTTLED_FIX = "raise num_retries / num_boto3_retries in the dbt profile and run the doctor again"
FAILED = "athena:GetDataCatalog failed ({error}){tail}"
FAILED_FIX = "check the region and credentials of your dbt profile"
REGISTER_FIX = "register the owner's Glue catalog: {command}"
NOT_GLUE_FIX = (
    "Spark reads only GLUE catalogs; "
    "register the owner's Glue catalog under a GLUE catalog name ({command}) "
    "and point the source's database at it"
)
LOWERCASE_NOTE = "; note that Athena SQL lowercases catalog names, so prefer '{name}'"

Catalog = Optional[Mapping[str, Any]]


def _get_data_catalog(aws: Aws, name: str) -> Union[Catalog, AwsError]:
    """The catalog under its lower-case name or as spelled; None when neither exists."""
    for spelling in dict.fromkeys([name.lower(), name]):
        answer = aws.request("athena", "get_data_catalog", Name=spelling)
        if isinstance(answer, AwsError) and not answer.not_found:
            return answer
        # moto answers an unknown name with an empty body instead of an error
        if not isinstance(answer, AwsError) and answer.get("DataCatalog"):
            catalog: Mapping[str, Any] = answer["DataCatalog"]
            return catalog
    return None


def _error_row(name: str, region: str, error: AwsError, tail: str) -> Check:
    if error.denied:
        fix = DENIED_FIX.format(region=region, name=name.lower())
        return Check(FAIL, KIND, name, DENIED.format(error=error.text, tail=tail), fix)
    if error.throttled:
        reason = THROTTLED.format(code=error.code, tail=tail)
        return Check(FAIL, KIND, name, reason, THROTTLED_FIX)
    return Check(FAIL, KIND, name, FAILED.format(error=error.text, tail=tail), FAILED_FIX)


def _unusable_fix(name: str, region: str, catalog: Catalog, malformed: bool) -> str:
    if catalog is None:
        return REGISTER_FIX.format(command=fixes.create_data_catalog(name.lower(), region))
    if malformed:
        fix = fixes.update_data_catalog(str(catalog.get("Name", name)), region)
    else:
        fix = NOT_GLUE_FIX.format(command=fixes.create_data_catalog("<new name>", region))
    if name != name.lower():
        fix += LOWERCASE_NOTE.format(name=name.lower())
    return fix


def check_registration(
    aws: Aws, name: str, skipped: Sequence[str] = ()
) -> Tuple[Check, Optional[str]]:
    """(row, owner account id): PASS with the id, or FAIL with the fix and None."""
    tail = SKIPPED.format(n=len(skipped)) if skipped else ""
    region = aws.region
    catalog = _get_data_catalog(aws, name)
    if isinstance(catalog, AwsError):
        return _error_row(name, region, catalog, tail), None
    resolution = classify(name, catalog, default_catalog_id)
    if resolution.account_id:
        reason = REGISTERED.format(account=resolution.account_id)
        return Check(PASS, KIND, name, reason), resolution.account_id
    fix = _unusable_fix(name, region, catalog, resolution.malformed)
    return Check(FAIL, KIND, name, resolution.reason + tail, fix), None
