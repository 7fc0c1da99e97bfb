#!/usr/bin/env python3
"""An independent check of tool outputs against their advertised outputSchema.

Reads a JSON list of {"name", "schema", "instance"} on stdin and validates each with the
`jsonschema` package (Draft 2020-12), so the server's own checker does not grade itself alone.
Exits 1 and names every failure; 0 when all conform. Used by tests/it/briefs.rs.
"""
import json
import sys

from jsonschema import Draft202012Validator


def main():
    cases = json.load(sys.stdin)
    failures = []
    for case in cases:
        Draft202012Validator.check_schema(case["schema"])
        validator = Draft202012Validator(case["schema"])
        for err in validator.iter_errors(case["instance"]):
            path = "/".join(str(p) for p in err.absolute_path)
            failures.append(f"{case['name']}: at /{path}: {err.message}")
    for f in failures:
        print(f)
    print(f"schema_check: {len(cases)} outputs, {len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
