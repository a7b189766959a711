"""The doctor tests' AWS: a moto server in its own process, the world in it, and clients."""

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

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class DoctorAws:
    """The subprocess server plus the world the doctor tests read."""

    def __init__(self, workdir: Path, spec: Optional[Dict[str, Any]] = None) -> None:
        self.workdir = workdir
        self.spec = spec if spec is not None else world.WORLD
        self.port = free_port()
        self.endpoint_url = f"http://127.0.0.1:{self.port}"
        self.log_path = workdir / "requests.jsonl"
        self.keys: Dict[str, Dict[str, str]] = {}
        self.process: Optional[subprocess.Popen] = None

    # -- life cycle ---------------------------------------------------------------------
    def _wait_until_up(self) -> None:
        import requests

        assert self.process is not None
        deadline = time.time() + 60
        while True:
            try:
                requests.get(f"{self.endpoint_url}/moto-api/data.json", timeout=2)
                return
            except requests.RequestException:
                if self.process.poll() is not None or time.time() > deadline:
                    raise RuntimeError((self.workdir / "server.log").read_text()) from None
                time.sleep(0.1)

    def start(self) -> DoctorAws:
        import requests

        env = dict(os.environ)
        env.pop("INITIAL_NO_AUTH_ACTION_COUNT", None)
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.doctor_support.server",
                str(self.port),
                str(self.log_path),
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=open(self.workdir / "server.log", "wb"),  # noqa: SIM115 - lives as long as the process
        )
        self._wait_until_up()
        self.keys = world.build(self.client, self.spec)
        self.set_faults(world.fault_rules(self.spec, self.keys))
        # From here on every request must be signed by an IAM user whose policy allows it.
        requests.post(f"{self.endpoint_url}/moto-api/reset-auth", data=b"0", timeout=10)
        self.clear_log()
        return self

    def set_faults(self, rules: List[Dict[str, Any]]) -> None:
        import requests

        requests.post(f"{self.endpoint_url}/doctor-api/rules", data=json.dumps(rules), timeout=10)

    def set_latency(self, seconds: float) -> None:
        """Delay every AWS request by ``seconds`` from now on (0: no delay)."""
        import requests

        requests.post(
            f"{self.endpoint_url}/doctor-api/latency", data=json.dumps(seconds), timeout=10
        )

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)

    # -- clients ------------------------------------------------------------------------
    def client(self, service: str, user: Optional[str] = None, attempts: int = 1) -> Any:
        import boto3
        from botocore.config import Config

        creds = (
            self.keys[user]
            if user
            else {"aws_access_key_id": "admin", "aws_secret_access_key": "admin"}
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
        self.log_path.write_text("")

    def requests(self) -> List[Dict[str, Any]]:
        lines = self.log_path.read_text().splitlines() if self.log_path.exists() else []
        return [json.loads(line) for line in lines if line.strip()]

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
