"""``dbt run-operation cross_account_doctor``: a read-only preflight for cross-account reads.

Registering the catalog, reading the Glue *metadata* in the owner account and reading the
*data* in S3 fail for different reasons and need different fixes, so each is its own
check, with its own row in the report.

Modules, in the order a run uses them:

* ``rows``: the report's rows (:class:`~.rows.Check`) and the facts the checks take.
* ``aws_errors``: AWS errors as data (denied? not found? the short text to quote).
* ``policies``: the Glue and S3 policy documents a fix prints, filled in.
* ``plugin_setup``, ``session``: checks without AWS calls (dispatch, engine_config).
* ``identity``: who the checks run as, and Spark's execution role.
* ``registration``, ``metadata``, ``table_format``, ``data``: one module per check family.
* ``run``: :func:`~.run.run_doctor`, which runs them all.
* ``report``: the text table and the result the macro reads.
* ``adapter_method``: ``adapter.run_cross_account_doctor``, the dbt side.

Nothing is imported here: every dbt command imports the plugin, few run the doctor.
"""
