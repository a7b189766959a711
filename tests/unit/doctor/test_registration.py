"""registration: athena:GetDataCatalog, type GLUE, a 12-digit catalog-id."""

from __future__ import annotations

from dbt_athena_cross_account.doctor.rows import FAIL, PASS
from tests.doctor_support import OWNER_ACCOUNT
from tests.unit.doctor.helpers import only, run


def test_registration_passes_for_glue_catalog_with_account_id(aws):
    _, rows = run(aws, catalogs=("partner_catalog",))
    row = only(rows, "registration", "partner_catalog")
    assert row.status == PASS and OWNER_ACCOUNT in row.reason


def test_registration_matches_case_insensitively(aws):
    _, rows = run(aws, catalogs=("Partner_Catalog",))
    assert only(rows, "registration", "Partner_Catalog").status == PASS


def test_unregistered_catalog_fails_with_create_data_catalog_line(aws):
    _, rows = run(aws, tables=("missing_catalog.sales.orders",))
    row = only(rows, "registration", "missing_catalog")
    assert row.status == FAIL
    assert "not registered" in row.reason and "1 table check(s) skipped" in row.reason
    assert (
        "aws athena create-data-catalog --region eu-west-1 --name missing_catalog --type GLUE "
        "--parameters 'catalog-id=<12-digit owner account id>'" in row.fix
    )
    # nothing is looked up in Glue or S3 for a catalog that does not resolve
    assert [r.kind for r in rows if r.subject.startswith("missing_catalog.")] == []


def test_non_glue_catalog_fails(aws):
    _, rows = run(aws, catalogs=("lambda_catalog",))
    row = only(rows, "registration", "lambda_catalog")
    assert row.status == FAIL and "LAMBDA" in row.reason and "create-data-catalog" in row.fix


def test_malformed_catalog_id_fails_with_update_line(aws):
    _, rows = run(aws, catalogs=("s3tables_catalog",))
    row = only(rows, "registration", "s3tables_catalog")
    assert row.status == FAIL and "s3tablescatalog/tables-bucket" in row.reason
    assert "aws athena update-data-catalog --region eu-west-1 --name s3tables_catalog" in row.fix


def test_get_data_catalog_denied_fails_naming_the_action(aws):
    _, rows = run(aws, user="dbt_none", catalogs=("partner_catalog",))
    row = only(rows, "registration", "partner_catalog")
    assert row.status == FAIL and "athena:GetDataCatalog was denied" in row.reason
    assert "grant athena:GetDataCatalog" in row.fix and "datacatalog/partner_catalog" in row.fix


def test_throttled_registration_fails_with_retry_advice(aws):
    _, rows = run(aws, catalogs=("throttled_catalog",))
    row = only(rows, "registration", "throttled_catalog")
    assert row.status == FAIL and "ThrottlingException" in row.reason and "num_retries" in row.fix


def test_other_errors_fail_with_the_aws_error(aws):
    _, rows = run(aws, catalogs=("broken_catalog",))
    row = only(rows, "registration", "broken_catalog")
    assert row.status == FAIL and "InternalServerException" in row.reason
