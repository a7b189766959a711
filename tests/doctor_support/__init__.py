"""A private moto server for the cross_account_doctor tests, and the world it holds.

* ``server``: moto's WSGI app behind a recorder, run in its own process
  (``python -m tests.doctor_support.server PORT LOG_PATH``).
* ``aws``: :class:`DoctorAws` starts that process, builds the world, hands out clients and
  reads the request log.
* ``world``: builds ``tests/fixtures/doctor_world.yml`` through the AWS APIs.

Why a subprocess: moto's backends and its IAM-enforcement switch
(``INITIAL_NO_AUTH_ACTION_COUNT``) are process-global, and the shared session emulator
lives in the pytest process. Running this server elsewhere leaves both untouched.
"""

from tests.doctor_support.aws import DoctorAws
from tests.doctor_support.world import EXECUTION_ROLE, KMS_KEY, OWNER_ACCOUNT, REGION, WORLD

__all__ = ["EXECUTION_ROLE", "KMS_KEY", "OWNER_ACCOUNT", "REGION", "WORLD", "DoctorAws"]
