"""The doctor tests' AWS: the emulator served in its own process, the world in it, clients."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

from tests.doctor_support import world

SERVE = [sys.executable, "-m", "athena_spark_emulator.cli", "serve"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve_emulator(workdir: Path, seed: Dict[str, Any], port: int) -> subprocess.Popen:
    """``athena-spark-emulator serve`` on ``port``, seeded with ``seed``, in its own process
    and session (moto's IAM switch is process-wide), returned once it says it is ready;
    its stderr goes to ``workdir/emulator.log``."""
    seed_file = workdir / "seed.json"
    seed_file.write_text(json.dumps(seed))
    log = workdir / "emulator.log"
    env = {k: v for k, v in os.environ.items() if k != "INITIAL_NO_AUTH_ACTION_COUNT"}
    with open(log, "wb") as err:
        process = subprocess.Popen(
            [*SERVE, "--port", str(port), "--seed", str(seed_file)],
            cwd=workdir,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
        )
    deadline = time.time() + 120
    while "ready in" not in log.read_text(errors="replace"):
        if process.poll() is not None or time.time() > deadline:
            process.terminate()
            raise RuntimeError(log.read_text(errors="replace"))
        time.sleep(0.1)
    return process


class DoctorAws:
    """A served emulator (its own process) plus the world the doctor tests read."""

    def __init__(self, workdir: Path, spec: Optional[Dict[str, Any]] = None) -> None:
        self.workdir = workdir
        self.spec = spec if spec is not None else world.WORLD
        self.port = free_port()
        self.endpoint_url = f"http://127.0.0.1:{self.port}"
        self.keys: Dict[str, Dict[str, str]] = {}
        self.process: Optional[subprocess.Popen] = None

    # -- life cycle ---------------------------------------------------------------------
    def start(self) -> DoctorAws:
        """``athena-spark-emulator serve`` seeded with the world's data catalogs and the
        owner's grant, then the rest of the world through the AWS APIs, the faults, and
        from then on IAM enforcement: every request must be signed by an IAM user whose
        policy allows it."""
        self.process = serve_emulator(self.workdir, world.seed(self.spec), self.port)
        self.keys = world.build(self.client, self.spec)
        self._control("POST", "faults", world.fault_rules(self.spec, self.keys))
        self._control("PUT", "iam", {"enforce": True})
        self.clear_log()
        return self

    def _control(self, method: str, name: str, body: Any = None) -> Any:
        """A call of the emulator's control API (athena_spark_emulator/aws/control.py)."""
        import requests

        answer = requests.request(
            method, f"{self.endpoint_url}/_emulator/{name}", data=json.dumps(body), timeout=30
        )
        answer.raise_for_status()
        return answer.json()

    def set_faults(self, rules: List[Dict[str, Any]]) -> None:
        self._control("DELETE", "faults")
        self._control("POST", "faults", rules)

    def set_latency(self, seconds: float) -> None:
        """Delay every AWS request by ``seconds`` from now on (0: no delay)."""
        self._control("PUT", "latency", {"*": seconds} if seconds else {})

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=60)

    # -- clients ------------------------------------------------------------------------
    def client(self, service: str, user: Optional[str] = None, attempts: int = 1) -> Any:
        import boto3
        from botocore.config import Config

        creds = (
            self.keys[user]
            if user
            else {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}
        )
        return boto3.client(
            service,
            region_name=world.REGION,
            endpoint_url=self.endpoint_url,
            config=Config(retries={"max_attempts": attempts, "mode": "standard"}),
            **creds,
        )

    def env(self, user: str) -> Dict[str, str]:
        """Environment for a dbt subprocess that signs as ``user``."""
        return {
            "AWS_ENDPOINT_URL": self.endpoint_url,
            "AWS_ACCESS_KEY_ID": self.keys[user]["aws_access_key_id"],
            "AWS_SECRET_ACCESS_KEY": self.keys[user]["aws_secret_access_key"],
            "AWS_DEFAULT_REGION": world.REGION,
            "AWS_REGION": world.REGION,
        }

    # -- the request log ----------------------------------------------------------------
    def clear_log(self) -> None:
        self._control("DELETE", "requests")

    def requests(self) -> List[Dict[str, Any]]:
        return list(self._control("GET", "requests"))

    def actions(self) -> List[str]:
        return [r["action"] for r in self.requests()]

    def most_in_flight(self, service: Optional[str] = None) -> int:
        """The largest number of logged requests (of ``service``, or of any) that were being
        served at the same time."""
        logged = [r for r in self.requests() if service in (None, r["service"])]
        edges = sorted([(r["start"], 1) for r in logged] + [(r["end"], -1) for r in logged])
        most = current = 0
        for _, step in edges:
            current += step
            most = max(most, current)
        return most
