"""The ``spark_cross_account_catalog`` flag: a boolean, or a string that means one. Pure; no dbt.

A flag taken from ``env_var()`` in ``dbt_project.yml`` arrives as a string: ``"false"`` is
truthy in Jinja and Python, but the user meant "off". So the flag is read as a boolean:
``True``/``False``, or the strings dbt's ``as_bool`` filter turns into one (``True``,
``False``), in any case and with surrounding whitespace. Anything else stops the model.

The package's macro ``_cross_account_opted_in`` is the Jinja twin of :func:`opted_in`
(the setup check and the doctor must work without the plugin); both accept the same values.
"""

from __future__ import annotations

from typing import Any

FLAG = "spark_cross_account_catalog"
TRUE_STRINGS = frozenset({"true"})
FALSE_STRINGS = frozenset({"false"})

# One source line, so that the README's troubleshooting row finds it with grep. The macro
# _cross_account_opted_in prints the same text.
NOT_A_BOOLEAN = "dbt_athena_cross_account: model '{model}' sets spark_cross_account_catalog: {value}, which is not a boolean (true or false). Fix: set true or false; a value from env_var() or var() must end with | as_bool, e.g. \"{{{{ env_var('XACCT', 'false') | as_bool }}}}\"."


class FlagError(ValueError):
    """The flag is neither a boolean nor a string that means one."""


def opted_in(model: str, value: Any) -> bool:
    """True when ``value`` (the model's flag, None when unset) turns the package on."""
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in TRUE_STRINGS:
            return True
        if word in FALSE_STRINGS:
            return False
    raise FlagError(NOT_A_BOOLEAN.format(model=model, value=repr(value)))
