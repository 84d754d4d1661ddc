"""The running gateway against docs/openapi.yaml, with schemathesis: every operation, generated
requests (valid and invalid) and stateful sequences, every response checked against the document
(status codes, content types, headers, schemas), undeclared methods answered 405, and never a
server error."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_gateway_conforms_to_its_openapi_document(system):
    system.start_worker() if "worker" not in system.processes else None
    command = [
        str(Path(sys.executable).parent / "schemathesis"), "run", str(ROOT / "docs" / "openapi.yaml"),
        "--url", system.base,
        "--header", f"Authorization: Bearer {system.token}",
        "--checks", "all",
        # "A schema-valid request must be accepted" cannot hold for this API: a schema-valid upload
        # is any bytes, but only a GPX, TCX or FIT file is a workout (400 naming what is wrong), and a
        # picture request for a heatmap of a workout without heart rate is 422 by design.
        "--exclude-checks", "positive_data_acceptance",
        "--max-examples", os.environ.get("WORKFEED_SCHEMATHESIS_EXAMPLES", "40"),
        "--seed", "14",
        "--no-color",
    ]
    # Its own files (.schemathesis/) go to the system's temporary directory, not the work tree.
    result = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=system.dir)
    print(result.stdout[-20000:])
    print(result.stderr[-5000:])
    assert result.returncode == 0, "schemathesis found responses that do not conform (output above)"
