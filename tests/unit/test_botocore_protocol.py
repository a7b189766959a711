"""The emulator refuses, with the fix, a botocore that calls Athena over REST-JSON.

botocore 1.44.18 moved Athena to REST-JSON (``GET /workgroups``); moto answers only Athena's
JSON protocol, so with that botocore every Athena call got a bare 404 from moto's server.
The check reads the real service model botocore loads, here from a copy whose protocol is
REST-JSON, put first on botocore's search path (``AWS_DATA_PATH``) in a fresh process."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import botocore

from athena_spark_emulator.core.errors import require_json_athena

CHECK = "from athena_spark_emulator.core.errors import require_json_athena; require_json_athena()"


def test_the_installed_botocore_speaks_athenas_json_protocol() -> None:
    require_json_athena()  # the extra's pin holds in the venv the tests run in


def test_a_rest_json_athena_model_is_refused_with_the_pin_to_install(tmp_path: Path) -> None:
    data = Path(botocore.__file__).parent / "data" / "athena"
    version = sorted(p.name for p in data.iterdir())[-1]
    source = next((data / version).glob("service-2.json*"))
    opener = gzip.open if source.suffix == ".gz" else open
    with opener(source, "rt", encoding="utf-8") as handle:
        model = json.load(handle)
    model["metadata"]["protocol"] = "rest-json"
    model["metadata"]["protocols"] = ["rest-json"]
    target = tmp_path / "athena" / version / "service-2.json"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(model), encoding="utf-8")

    done = subprocess.run(
        [sys.executable, "-c", CHECK],
        env={**os.environ, "AWS_DATA_PATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "calls Athena over its 'rest-json' protocol" in done.stderr
    assert "pip install 'botocore<1.44.18'" in done.stderr
