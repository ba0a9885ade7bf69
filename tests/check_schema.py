#!/usr/bin/env python3
"""Validates JSON documents against a gridtune JSON Schema (2020-12).

usage: check_schema.py SCHEMA FILE...
Exits 0 when the schema is well-formed and every file conforms; otherwise prints each
violation with the file and the JSON path, and exits 1.
"""
import json
import sys

import jsonschema


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    failures = 0
    for path in argv[2:]:
        with open(path) as f:
            doc = json.load(f)
        for error in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
            where = "/".join(str(p) for p in error.absolute_path) or "(root)"
            print(f"{path}: {where}: {error.message}", file=sys.stderr)
            failures += 1
    if failures:
        print(f"{failures} violation(s)", file=sys.stderr)
        return 1
    print(f"{len(argv) - 2} document(s) conform to {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
