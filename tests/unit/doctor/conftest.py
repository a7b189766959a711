"""One served emulator with IAM enforcement (tests/doctor_support) for every doctor unit
test."""

from __future__ import annotations

from typing import Iterator

import pytest

from tests.doctor_support import DoctorAws


@pytest.fixture(scope="session")
def aws(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DoctorAws]:
    server = DoctorAws(tmp_path_factory.mktemp("doctor-aws")).start()
    yield server
    server.stop()
