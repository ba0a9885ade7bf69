#!/usr/bin/env python3
"""make_corpus.py: turns gridtuned traces (gridtuned --trace FILE, one JSON line per frame) into
the fuzz targets' seed corpora, tests/fuzz/corpus/wire/ and tests/fuzz/corpus/request/.

    tests/fuzz/make_corpus.py --wisdom WISDOM.json TRACE.jsonl [TRACE.jsonl...]

The committed corpus came from tests/data/protocol-sample.jsonl and a trace of a gridtuned
(--trace) that served `gridtune status`, `gridtune demo --size 256`, `gridtune reports`,
`gridtune wisdom import` (of that daemon's own wisdom file, which is --wisdom here) and
`gridtune wisdom clear`, so every request type of daemon/requests/dispatch.c's handlers[] is in it.
Each frame's descriptor count comes from the trace ("fds" on an "in" line), so the traces must
come from a gridtuned that records it.

Input formats (fuzz_wire.c, fuzz_request.c):
  wire     byte 0: descriptors sent with the first bytes (& 7); byte 1: bytes per write (0: one
           write); then the stream: frames as protocol/wire.h has them (8-byte header: JSON
           length and descriptor count, both 32-bit big-endian, then the JSON).
  request  a request's JSON text; or 'o' and a kernel build's option string; or 'w' and a
           wisdom file's text.
Existing files of the same name are replaced; other files in the directories are left alone.
Among those, request/wisdom-<name>.json (span, grouped, refine, resume, uid) are kept by hand: a 'w'
and a wisdom file in the form gridtune writes, with what the traced daemon's wisdom lacked.
wisdom-refine.json is gridtune's own output: `gridtune wisdom import` of a hand-edited
wisdom-0.json, then `gridtune wisdom export`; so is wisdom-resume.json, of wisdom-refine.json
with an entry's unexplored axes and resumes added. wisdom-resume-bad-axis.json names an axis
that does not exist. wisdom-uid.json is wisdom-span.json with each entry's owner (uid) added;
wisdom-uid-bad.json gives one the uid that stands for none."""
import argparse
import json
import pathlib
import struct

# Option strings beside the ones the traces hold: allowed and refused forms of daemon/build/build_options.c.
OPTIONS = ["-O2 -DN=4 -march=native -ffast-math", "-O0 -g -std=c11 -pedantic -Wall -Wno-unused -UNDEBUG",
           "-fno-tree-vectorize -funroll-loops -fvect-cost-model=cheap -mtune=generic",
           "-o /tmp/x", "-fplugin=x", "-Wl,-rpath,/x", "-I/etc", "-fdump-tree-all", "-D1X", "-march=../../x",
           "-fsanitize=address", "-O2 -fsanitize=address -g", "-fno-sanitize=all", "-fprofile-generate",
           "--coverage", "-pg", "-finstrument-functions", "-specs=x", "-B/tmp", "-wrapper", "-Wa", "-Xlinker",
           "-lm", "-L.", "-fopenmp", "-include", "-iquote.", "--sysroot=x", "@file", "-MF", "-save-temps=obj",
           "-frecord-gcc-switches", "-x"]

# Schedule texts beside the traces' ones, set into a launch's options: spans, grouped orders and
# their bad forms.
SCHEDULES = ["group=linear,span=8,item=linear,assign=dynamic:1", "span=65536,item=tiled:16x4", "span=0",
             "span=65537", "span=", "span=2,span=2", "group=hilbert,span=3,item=column,assign=stealing",
             "span=-1,item=linear", "span=99999999999999999999",
             "group=grouped:8,span=2,item=grouped:4,assign=dynamic:4", "group=grouped:65536,item=grouped:1",
             "group=grouped:0", "item=grouped:70000", "group=grouped:4x4", "group=grouped"]


# A launch's answer and keep_event beside what the traces hold: the one-trip forms and refused ones.
ANSWERS = [{"answer": "completed"}, {"answer": "completed", "keep_event": False}, {"answer": "queued"},
           {"answer": "queued", "keep_event": True}, {"keep_event": False}, {"answer": "later"}, {"answer": 1},
           {"answer": "completed", "keep_event": "no"}, {"answer": None}]


def answer_variants(launch):
    """The launch request with each of ANSWERS in place of its own answer and keep_event."""
    for extra in ANSWERS:
        msg = {k: v for k, v in launch.items() if k not in ("answer", "keep_event")}
        msg.update(extra)
        yield msg


def frame(msg, nfds):
    text = json.dumps(msg, separators=(",", ":")).encode()
    return struct.pack(">II", len(text), nfds) + text


def wire_file(frames, nfds, chunk=0):
    return bytes([nfds, chunk]) + b"".join(frames)


def requests(traces):
    """Each request frame the clients sent, in order, with its connection and its descriptor count."""
    for path in traces:
        with open(path) as f:
            for line in f:
                rec = json.loads(line)
                if rec.get("dir") == "in" and isinstance(rec.get("msg"), dict):
                    yield rec.get("conn"), rec["msg"], rec.get("fds", 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("traces", nargs="+")
    ap.add_argument("--wisdom", action="append", default=[], help="a wisdom file to seed the request target with")
    ap.add_argument("--out", default=str(pathlib.Path(__file__).parent / "corpus"))
    a = ap.parse_args()
    out = pathlib.Path(a.out)
    (out / "wire").mkdir(parents=True, exist_ok=True)
    (out / "request").mkdir(parents=True, exist_ok=True)

    # request: up to three different requests of each type (five launches; ids aside), from every trace
    seen, kept, options = set(), {}, []
    first_conn = []
    for conn, msg, nfds in requests(a.traces):
        t = str(msg.get("type"))
        if msg.get("type") == "kernel_build" and isinstance(msg.get("options"), str):
            options.append(msg["options"])
        if conn == 1 and len(first_conn) < 16:
            first_conn.append((msg, nfds))
        shape = json.dumps({k: v for k, v in msg.items() if k != "id"}, sort_keys=True)
        if shape in seen or len(kept.setdefault(t, [])) == (5 if t == "launch" else 3):
            continue
        seen.add(shape)
        kept[t].append((msg, nfds))
    written = 0
    for t, msgs in sorted(kept.items()):
        for i, (msg, nfds) in enumerate(msgs):
            (out / "request" / f"{t}-{i}.json").write_text(json.dumps(msg, separators=(",", ":")))
            # wire: the same request as one frame, and then cut into writes of 7 bytes
            (out / "wire" / f"{t}-{i}.bin").write_bytes(wire_file([frame(msg, nfds)], nfds, 7 if i else 0))
            written += 2
    for i, msg in enumerate(answer_variants(kept["launch"][0][0]) if kept.get("launch") else []):
        (out / "request" / f"launch-answer-{i}.json").write_text(json.dumps(msg, separators=(",", ":")))
        (out / "wire" / f"launch-answer-{i}.bin").write_bytes(wire_file([frame(msg, 0)], 0, 7 if i % 2 else 0))
        written += 2
    for i, o in enumerate(dict.fromkeys(options + OPTIONS)):
        (out / "request" / f"options-{i}.txt").write_bytes(b"o" + o.encode())
        written += 1
    launch = next((m for m, _ in kept.get("launch", []) if isinstance(m.get("options"), dict)), None)
    for i, text in enumerate(SCHEDULES if launch else []):
        msg = dict(launch, options=dict(launch["options"], schedule=text))
        (out / "request" / f"schedule-{i}.json").write_text(json.dumps(msg, separators=(",", ":")))
        written += 1
    for i, path in enumerate(a.wisdom):
        (out / "request" / f"wisdom-{i}.json").write_bytes(b"w" + pathlib.Path(path).read_bytes())
        written += 1

    # wire: a connection's first frames back to back, and the ways a stream of them breaks
    frames = [frame(m, n) for m, n in first_conn]
    nfds = sum(n for _, n in first_conn)
    hello = frame(*first_conn[0])
    broken = {
        "session.bin": wire_file(frames, min(nfds, 7)),
        "session-split.bin": wire_file(frames, min(nfds, 7), 3),
        "truncated.bin": wire_file([hello[: len(hello) // 2]], 0),
        "oversized.bin": wire_file([struct.pack(">II", 0xFFFFFFFF, 0) + hello[8:]], 0),
        "too-many-fds.bin": wire_file([hello[:4] + struct.pack(">I", 5) + hello[8:]], 5),
        "fds-missing.bin": wire_file([hello[:4] + struct.pack(">I", 2) + hello[8:]], 1),
        "trailing-bytes.bin": wire_file([struct.pack(">II", len(hello) - 8 + 4, 0) + hello[8:] + b" {}x"], 0),
        "empty-frame.bin": wire_file([struct.pack(">II", 0, 0), hello], 0),
    }
    for name, data in broken.items():
        (out / "wire" / name).write_bytes(data)
        written += 1
    print(f"make_corpus: {written} files in {out}/wire and {out}/request")


if __name__ == "__main__":
    main()
