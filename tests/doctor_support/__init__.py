"""The doctor tests' AWS: the emulator (``athena-spark-emulator serve``) in its own process,
with IAM enforcement on, and the world it holds.

* ``aws``: :class:`DoctorAws` starts the emulator, builds the world, sets the faults, hands
  out clients and reads the emulator's request log (its control API, ``/_emulator/``).
* ``world``: builds ``tests/fixtures/doctor_world.yml`` through the emulator's seed and the
  AWS APIs.

Why a subprocess: moto's backends and its IAM-enforcement switch
(``INITIAL_NO_AUTH_ACTION_COUNT``) are process-global, and the shared session emulator
lives in the pytest process. Serving this one elsewhere leaves both untouched.
"""

from tests.doctor_support.aws import DoctorAws
from tests.doctor_support.world import EXECUTION_ROLE, KMS_KEY, OWNER_ACCOUNT, REGION, WORLD

__all__ = ["EXECUTION_ROLE", "KMS_KEY", "OWNER_ACCOUNT", "REGION", "WORLD", "DoctorAws"]
