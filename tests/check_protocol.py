#!/usr/bin/env python3
"""Checks a trace of gridtune protocol traffic (gridtuned --trace FILE) against the schemas.

usage: check_protocol.py SCHEMA_DIR TRACE_FILE [--require TYPE,TYPE,...|all]

SCHEMA_DIR is the schemas/ directory: every *.schema.json in it and in its protocol/
subdirectory is checked as a 2020-12 schema and registered by its $id, so that $refs between
files resolve. The request types are those with protocol/TYPE.schema.json and
protocol/TYPE.result.schema.json (one without the other is an error); test_daemon checks that
they are the types of daemon/requests.c's handlers[], so tests take the list from here. The trace holds one JSON object per line:
  {"dir": "in", "msg": {...}}                           a frame the daemon received (with
                                                        "fds": N when descriptors came with it)
  {"dir": "out", "request": TYPE or null, "msg": {...}} a result or error the daemon sent
and optionally "conn": a connection number, since request ids are unique per connection only.
An "out" line answers the earliest unanswered "in" line of the same connection with the same
msg.id. These must hold:
  - a request the daemon answered with a result conforms to protocol/<type>.schema.json (the
    daemon accepted it, so it must be valid; requests answered with an error are not checked,
    since tests send bad ones on purpose);
  - the result conforms to protocol/<request>.result.schema.json;
  - every error conforms to protocol/error.schema.json;
  - every answer with an id answers exactly one request received earlier, of its type;
  - with --require, a result of each listed request type appears at least once; "all" lists
    every request type.
Prints each violation with the trace's line number and the JSON path, and exits 1; otherwise
prints "N requests, M results, K errors checked" and exits 0. Exits 2 on a usage error.
Works with the jsonschema of Debian 12 (4.10, RefResolver) and with newer ones (referencing).
"""
import argparse
import collections
import inspect
import json
import pathlib
import sys

import jsonschema

# jsonschema >= 4.18 resolves $refs through a referencing.Registry; older ones (Debian 12 has
# 4.10) through a RefResolver.
HAS_REGISTRY = "registry" in inspect.signature(jsonschema.Draft202012Validator).parameters
if HAS_REGISTRY:
    import referencing
    import referencing.jsonschema


def refs(node):
    """Every $ref in a schema."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from refs(value)


def resolves(ref, base_id, by_id):
    """Whether ref, an $id with a JSON-pointer fragment or a fragment alone, names a schema.
    Checked up front, so that a mistyped $id fails here and not halfway through a trace."""
    uri, _, fragment = ref.partition("#")
    if (uri or base_id) not in by_id:
        return False
    node = by_id[uri or base_id][1]
    for part in [p for p in fragment.split("/") if p]:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return False
    return True


class Schemas:
    """Every schema under SCHEMA_DIR, checked, registered by $id, with a validator per file."""

    def __init__(self, root):
        self.protocol_dir = root / "protocol"
        files = sorted(root.glob("*.schema.json")) + sorted(self.protocol_dir.glob("*.schema.json"))
        if not files or not self.protocol_dir.is_dir():
            raise SystemExit(f"check_protocol: no schemas in {root} and {self.protocol_dir}")
        self.by_file = {}
        by_id = {}
        for path in files:
            try:
                with open(path) as f:
                    schema = json.load(f)
                jsonschema.Draft202012Validator.check_schema(schema)
            except json.JSONDecodeError as e:
                raise SystemExit(f"check_protocol: {path}: not JSON: {e}")
            except jsonschema.exceptions.SchemaError as e:
                where = "/".join(map(str, e.absolute_path)) or "(root)"
                raise SystemExit(f"check_protocol: {path}: {where}: not a valid 2020-12 schema: {e.message}")
            sid = schema.get("$id")
            if not sid:
                raise SystemExit(f"check_protocol: {path} has no $id")
            if sid in by_id:
                raise SystemExit(f"check_protocol: {path} and {by_id[sid][0]} both have $id {sid}")
            by_id[sid] = (path, schema)
            self.by_file[path] = schema
        for path, schema in self.by_file.items():
            for ref in refs(schema):
                if not resolves(ref, schema["$id"], by_id):
                    raise SystemExit(f"check_protocol: {path}: $ref {ref} names no schema or no part of one")
        if not (self.protocol_dir / "error.schema.json").is_file():
            raise SystemExit(f"check_protocol: {self.protocol_dir} has no error.schema.json")
        requests = {p.name[:-len(".schema.json")] for p in self.by_file if p.parent == self.protocol_dir
                    and not p.name.endswith(".result.schema.json")} - {"common", "error"}
        for t in sorted(requests ^ set(self.result_types())):
            have, lack = (f"{t}.schema.json", f"{t}.result.schema.json") if t in requests else \
                (f"{t}.result.schema.json", f"{t}.schema.json")
            raise SystemExit(f"check_protocol: {self.protocol_dir} has {have} but no {lack}; "
                             "each request type has both")
        store = {sid: s for sid, (_, s) in by_id.items()}
        if HAS_REGISTRY:
            spec = referencing.jsonschema.DRAFT202012
            store = referencing.Registry().with_resources((sid, spec.create_resource(s)) for sid, s in store.items())
        self.validators = {path: self._validator(schema, store) for path, schema in self.by_file.items()}

    @staticmethod
    def _validator(schema, store):
        if HAS_REGISTRY:
            return jsonschema.Draft202012Validator(schema, registry=store)
        # Older jsonschema: a RefResolver with a store keyed by $id. Python's urljoin leaves
        # "#/$defs/x" unjoined against a urn: base, and the resolver would then look it up in
        # the schema it started from rather than in the one that holds the reference; so
        # fragment-only references are joined to the current scope here.
        class UrnResolver(jsonschema.RefResolver):
            def resolve(self, ref):
                if ref.startswith("#"):
                    ref = self.resolution_scope.split("#", 1)[0] + ref
                return super().resolve(ref)

        resolver = UrnResolver(schema["$id"], schema, store=store)
        return jsonschema.Draft202012Validator(schema, resolver=resolver)

    def request(self, msg_type):
        return self.validators.get(self.protocol_dir / f"{msg_type}.schema.json")

    def result(self, msg_type):
        return self.validators.get(self.protocol_dir / f"{msg_type}.result.schema.json")

    def error(self):
        return self.validators[self.protocol_dir / "error.schema.json"]

    def result_types(self):
        """The request types: each has a request and a result schema (checked when loading)."""
        suffix = ".result.schema.json"
        return sorted(p.name[:-len(suffix)] for p in self.by_file if p.name.endswith(suffix))


def json_path(error):
    return "msg" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)


class Checker:
    def __init__(self, schemas, trace_name):
        self.schemas = schemas
        self.trace_name = trace_name
        self.violations = 0
        self.counts = collections.Counter()
        self.results_seen = collections.Counter()
        # (conn, id) -> unanswered "in" lines: (line number, msg), oldest first
        self.pending = collections.defaultdict(collections.deque)

    def fail(self, lineno, where, text):
        print(f"{self.trace_name}:{lineno}: {where}: {text}", file=sys.stderr)
        self.violations += 1

    def validate(self, lineno, validator, msg, what):
        errors = sorted(validator.iter_errors(msg), key=lambda e: list(map(str, e.absolute_path)))
        for error in errors:
            self.fail(lineno, json_path(error), f"{what}: {error.message}")
        return not errors

    def line(self, lineno, text):
        try:
            entry = json.loads(text)
        except json.JSONDecodeError as e:
            return self.fail(lineno, "(line)", f"not JSON: {e}")
        if not isinstance(entry, dict) or entry.get("dir") not in ("in", "out") or not isinstance(entry.get("msg"), dict):
            return self.fail(lineno, "(line)", 'expected {"dir": "in"|"out", "msg": {...}}')
        conn = entry.get("conn")
        msg = entry["msg"]
        if entry["dir"] == "in":
            # A frame without a usable id cannot be answered by id; its error has id null.
            if isinstance(msg.get("id"), int) and not isinstance(msg.get("id"), bool):
                self.pending[(conn, msg["id"])].append((lineno, msg))
            return None
        return self.answer(lineno, conn, entry.get("request"), msg)

    def answer(self, lineno, conn, request_type, msg):
        kind = msg.get("type")
        if kind == "error":
            self.counts["errors"] += 1
            self.validate(lineno, self.schemas.error(), msg, "error")
        elif kind != "result":
            return self.fail(lineno, "msg.type", f'an answer must be "result" or "error", not {json.dumps(kind)}')
        request = self.match(lineno, conn, request_type, msg)
        if kind == "error":
            return None
        self.counts["results"] += 1
        validator = self.schemas.result(request_type) if isinstance(request_type, str) else None
        if validator is None:
            return self.fail(lineno, "request", f"a result must name a known request type, not {json.dumps(request_type)}")
        if self.validate(lineno, validator, msg, f"{request_type} result"):
            self.results_seen[request_type] += 1
        if request is not None:
            req_lineno, req = request
            self.counts["requests"] += 1
            req_validator = self.schemas.request(request_type)
            if req_validator is None:
                return self.fail(req_lineno, "msg.type", f"no request schema {request_type}.schema.json")
            self.validate(req_lineno, req_validator, req, f"{request_type} request (answered with a result on line {lineno})")
        return None

    def match(self, lineno, conn, request_type, msg):
        """The "in" line this answer belongs to, removed from the pending ones, or None."""
        msg_id = msg.get("id")
        if msg_id is None and msg.get("type") == "error":
            return None
        queue = self.pending.get((conn, msg_id))
        if not queue:
            self.fail(lineno, "msg.id", f"answers no unanswered request with id {json.dumps(msg_id)}"
                      + (f" on connection {json.dumps(conn)}" if conn is not None else ""))
            return None
        req_lineno, req = queue.popleft()
        if not queue:
            del self.pending[(conn, msg_id)]
        if request_type != req.get("type") and msg.get("type") == "result":
            self.fail(lineno, "request", f"names {json.dumps(request_type)}, but the request with this id "
                      f"on line {req_lineno} is {json.dumps(req.get('type'))}")
            return None
        return req_lineno, req

    def finish(self, required):
        for t in required:
            if not self.results_seen[t]:
                self.fail("-", "--require", f"no valid {t} result in the trace")
        unanswered = sum(len(q) for q in self.pending.values())
        if unanswered:
            # Not a violation: a client may leave, or a test may stop the daemon, before a wait
            # or report is answered. Said so that a trace that lost its answers is noticed.
            print(f"{self.trace_name}: note: {unanswered} request(s) never answered", file=sys.stderr)


def main(argv):
    parser = argparse.ArgumentParser(prog="check_protocol.py", description=__doc__.split("\n\n")[0],
                                     usage="%(prog)s SCHEMA_DIR TRACE_FILE [--require TYPE,TYPE,...|all]")
    parser.add_argument("schema_dir", type=pathlib.Path)
    parser.add_argument("trace", type=pathlib.Path)
    parser.add_argument("--require", default="", help="request types whose result must appear at least once; all: every request type")
    args = parser.parse_args(argv[1:])

    schemas = Schemas(args.schema_dir)
    required = schemas.result_types() if args.require == "all" else [t for t in args.require.split(",") if t]
    unknown = [t for t in required if schemas.result(t) is None]
    if unknown:
        parser.error(f"--require: no result schema for {', '.join(unknown)}; known: {', '.join(schemas.result_types())}")

    checker = Checker(schemas, str(args.trace))
    with open(args.trace) as f:
        for lineno, text in enumerate(f, 1):
            if text.strip():
                checker.line(lineno, text)
    checker.finish(required)
    if checker.violations:
        print(f"{checker.violations} violation(s)", file=sys.stderr)
        return 1
    c = checker.counts
    print(f"{c['requests']} requests, {c['results']} results, {c['errors']} errors checked")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
