"""Exception texts of failed statements, captured from the emulator (PySpark 3.5, ANSI
mode) by running the statements of tests/emulator/test_failure_reasons.py, shortened: the
Py4J header, the job-abort line and the "Caused by" with its first frames (an analysis
error: its first line). ``str(exc)`` is what the reason is read from."""

TEXTS = {
    "division": (
        "select 1 / t.k as x from failure_reasons.rows_hive t",
        "Py4JJavaError",
        "An error occurred while calling o189.collectToPython.\n"
        ': org.apache.spark.SparkException: Job aborted due to stage failure: Task 1 in stage 8.0 failed 1 times, most recent failure: Lost task 1.0 in stage 8.0 (TID 11) (localhost executor driver): org.apache.spark.SparkArithmeticException: [DIVIDE_BY_ZERO] Division by zero. Use `try_divide` to tolerate divisor being 0 and return NULL instead. If necessary set "spark.sql.ansi.enabled" to "false" to bypass this error.\n'
        'Caused by: org.apache.spark.SparkArithmeticException: [DIVIDE_BY_ZERO] Division by zero. Use `try_divide` to tolerate divisor being 0 and return NULL instead. If necessary set "spark.sql.ansi.enabled" to "false" to bypass this error.\n'
        "== SQL(line 1, position 13) ==\n"
        "SELECT CAST(1 DIV t.k AS INT) AS x FROM `athena_emula...\n"
        "            ^^^^^^^^^\n"
        "\n"
        "\tat org.apache.spark.sql.errors.QueryExecutionErrors$.divideByZeroError(QueryExecutionErrors.scala:206)\n"
        "\tat org.apache.spark.sql.errors.QueryExecutionErrors.divideByZeroError(QueryExecutionErrors.scala)\n"
        "\t...\n",
    ),
    "cast": (
        "select cast(t.s as integer) as x from failure_reasons.rows_hive t",
        "Py4JJavaError",
        "An error occurred while calling o222.collectToPython.\n"
        ': org.apache.spark.SparkException: Job aborted due to stage failure: Task 1 in stage 9.0 failed 1 times, most recent failure: Lost task 1.0 in stage 9.0 (TID 13) (localhost executor driver): org.apache.spark.SparkNumberFormatException: [CAST_INVALID_INPUT] The value \'abc\' of the type "STRING" cannot be cast to "INT" because it is malformed. Correct the value as per the syntax, or change its target type. Use `try_cast` to tolerate malformed input and return NULL instead. If necessary set "spark.sql.ansi.enabled" to "false" to bypass this error.\n'
        'Caused by: org.apache.spark.SparkNumberFormatException: [CAST_INVALID_INPUT] The value \'abc\' of the type "STRING" cannot be cast to "INT" because it is malformed. Correct the value as per the syntax, or change its target type. Use `try_cast` to tolerate malformed input and return NULL instead. If necessary set "spark.sql.ansi.enabled" to "false" to bypass this error.\n'
        "== SQL(line 1, position 8) ==\n"
        "SELECT CAST(t.s AS INT) AS x FROM `athena_emulator_4` A...\n"
        "       ^^^^^^^^^^^^^^^^\n"
        "\n"
        "\tat org.apache.spark.sql.errors.QueryExecutionErrors$.invalidInputInCastToNumberError(QueryExecutionErrors.scala:145)\n"
        "\tat org.apache.spark.sql.catalyst.util.UTF8StringUtils$.withException(UTF8StringUtils.scala:51)\n"
        "\t...\n",
    ),
    "integer_overflow": (
        "select t.n * 2147483647 as x from failure_reasons.rows_hive t",
        "Py4JJavaError",
        "An error occurred while calling o255.collectToPython.\n"
        ': org.apache.spark.SparkException: Job aborted due to stage failure: Task 1 in stage 10.0 failed 1 times, most recent failure: Lost task 1.0 in stage 10.0 (TID 15) (localhost executor driver): org.apache.spark.SparkArithmeticException: [ARITHMETIC_OVERFLOW] integer overflow. Use \'try_multiply\' to tolerate overflow and return NULL instead. If necessary set "spark.sql.ansi.enabled" to "false" to bypass this error.\n'
        'Caused by: org.apache.spark.SparkArithmeticException: [ARITHMETIC_OVERFLOW] integer overflow. Use \'try_multiply\' to tolerate overflow and return NULL instead. If necessary set "spark.sql.ansi.enabled" to "false" to bypass this error.\n'
        "== SQL(line 1, position 8) ==\n"
        "SELECT t.n * 2147483647 AS x FROM `athena_emulator_5` A...\n"
        "       ^^^^^^^^^^^^^^^^\n"
        "\n"
        "\tat org.apache.spark.sql.errors.ExecutionErrors.arithmeticOverflowError(ExecutionErrors.scala:127)\n"
        "\tat org.apache.spark.sql.errors.ExecutionErrors.arithmeticOverflowError$(ExecutionErrors.scala:113)\n"
        "\t...\n",
    ),
    "decimal_overflow": (
        "select t.d + t.d as x from failure_reasons.rows_hive t",
        "Py4JJavaError",
        "An error occurred while calling o288.collectToPython.\n"
        ': org.apache.spark.SparkException: Job aborted due to stage failure: Task 1 in stage 11.0 failed 1 times, most recent failure: Lost task 1.0 in stage 11.0 (TID 17) (localhost executor driver): org.apache.spark.SparkArithmeticException: [NUMERIC_VALUE_OUT_OF_RANGE] 199999999999999999999999999999999999998 cannot be represented as Decimal(38, 0). If necessary set "spark.sql.ansi.enabled" to "false" to bypass this error, and return NULL instead.\n'
        'Caused by: org.apache.spark.SparkArithmeticException: [NUMERIC_VALUE_OUT_OF_RANGE] 199999999999999999999999999999999999998 cannot be represented as Decimal(38, 0). If necessary set "spark.sql.ansi.enabled" to "false" to bypass this error, and return NULL instead.\n'
        "== SQL(line 1, position 8) ==\n"
        "SELECT t.d + t.d AS x FROM `athena_emulator_6` A...\n"
        "       ^^^^^^^^^\n"
        "\n"
        "\tat org.apache.spark.sql.errors.DataTypeErrors$.cannotChangeDecimalPrecisionError(DataTypeErrors.scala:235)\n"
        "\tat org.apache.spark.sql.types.Decimal.toPrecision(Decimal.scala:353)\n"
        "\t...\n",
    ),
    "ctas_division": (
        "create table failure_reasons.out_division with (format='PARQUET', external_location='s3://dbt-data/failure_reasons/out_division/') as with t as (select * from failure_reasons.rows_hive) select 1 / t.k as x from t",
        "Py4JJavaError",
        "An error occurred while calling o687.save.\n"
        ': org.apache.spark.SparkException: Job aborted due to stage failure: Task 1 in stage 21.0 failed 1 times, most recent failure: Lost task 1.0 in stage 21.0 (TID 34) (localhost executor driver): org.apache.spark.SparkArithmeticException: [DIVIDE_BY_ZERO] Division by zero. Use `try_divide` to tolerate divisor being 0 and return NULL instead. If necessary set "spark.sql.ansi.enabled" to "false" to bypass this error.\n'
        'Caused by: org.apache.spark.SparkArithmeticException: [DIVIDE_BY_ZERO] Division by zero. Use `try_divide` to tolerate divisor being 0 and return NULL instead. If necessary set "spark.sql.ansi.enabled" to "false" to bypass this error.\n'
        "== SQL(line 1, position 73) ==\n"
        "...r_21` AS rows_hive) SELECT CAST(1 DIV t.k AS INT) AS x FROM t\n"
        "                                   ^^^^^^^^^\n"
        "\n"
        "\tat org.apache.spark.sql.errors.QueryExecutionErrors$.divideByZeroError(QueryExecutionErrors.scala:206)\n"
        "\tat org.apache.spark.sql.errors.QueryExecutionErrors.divideByZeroError(QueryExecutionErrors.scala)\n"
        "\t...\n",
    ),
    "ctas_cast": (
        "create table failure_reasons.out_cast with (format='PARQUET', external_location='s3://dbt-data/failure_reasons/out_cast/') as with t as (select * from failure_reasons.rows_hive) select cast(t.s as integer) as x from t",
        "Py4JJavaError",
        "An error occurred while calling o724.save.\n"
        ': org.apache.spark.SparkException: Job aborted due to stage failure: Task 1 in stage 25.0 failed 1 times, most recent failure: Lost task 1.0 in stage 25.0 (TID 39) (localhost executor driver): org.apache.spark.SparkNumberFormatException: [CAST_INVALID_INPUT] The value \'abc\' of the type "STRING" cannot be cast to "INT" because it is malformed. Correct the value as per the syntax, or change its target type. Use `try_cast` to tolerate malformed input and return NULL instead. If necessary set "spark.sql.ansi.enabled" to "false" to bypass this error.\n'
        'Caused by: org.apache.spark.SparkNumberFormatException: [CAST_INVALID_INPUT] The value \'abc\' of the type "STRING" cannot be cast to "INT" because it is malformed. Correct the value as per the syntax, or change its target type. Use `try_cast` to tolerate malformed input and return NULL instead. If necessary set "spark.sql.ansi.enabled" to "false" to bypass this error.\n'
        "== SQL(line 1, position 68) ==\n"
        "...ulator_22` AS rows_hive) SELECT CAST(t.s AS INT) AS x FROM t\n"
        "                                   ^^^^^^^^^^^^^^^^\n"
        "\n"
        "\tat org.apache.spark.sql.errors.QueryExecutionErrors$.invalidInputInCastToNumberError(QueryExecutionErrors.scala:145)\n"
        "\tat org.apache.spark.sql.catalyst.util.UTF8StringUtils$.withException(UTF8StringUtils.scala:51)\n"
        "\t...\n",
    ),
    "missing_column": (
        "select t.k, nope as x from failure_reasons.rows_hive t",
        "AnalysisException",
        "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name `nope` cannot be resolved. Did you mean one of the following? [`d`, `k`, `n`, `s`, `iso`].; line 1 pos 12;\n",
    ),
    "missing_column_cte": (
        "with t as (select * from failure_reasons.v_iceberg) select t.k, nope as x from t",
        "AnalysisException",
        "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name `nope` cannot be resolved. Did you mean one of the following? [`d`, `k`, `n`, `s`, `iso`].; line 1 pos 72;\n",
    ),
}
