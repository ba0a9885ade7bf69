#!/usr/bin/env python3
"""descriptor_flood.py GRIDTUNED: 1,100 clients against a gridtuned whose descriptor limit is
1024 (systemd's default soft limit), as in issue 14, item 6. Prints how many were served and how
many refused with an answer, the daemon's CPU time over the next 10 s, and its log's length."""
import json, os, shutil, socket, struct, subprocess, sys, tempfile, time

def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = tempfile.mkdtemp(prefix="gt-audit-")
    sock, log = d + "/s.sock", d + "/log"
    proc = subprocess.Popen(["prlimit", "--nofile=1024:1024", sys.argv[1], "--foreground", "--socket", sock,
                             "--wisdom", d + "/w.json", "--cache-dir", d + "/cache", "--log", log, "--workers", "2",
                             "--no-probes", "--max-clients", "5000", "--max-user-clients", "5000"])
    try:
        while not os.path.exists(sock):
            time.sleep(0.05)
        time.sleep(0.3)
        hello = json.dumps({"type": "hello", "id": 1, "protocol": 1}).encode()
        conns, served, refused = [], 0, 0
        for _ in range(1100):
            s = socket.socket(socket.AF_UNIX)
            s.connect(sock)
            s.sendall(struct.pack(">II", len(hello), 0) + hello)
            s.settimeout(10)
            answer = s.recv(4096)
            served += b'"result"' in answer
            refused += b'"error"' in answer
            conns.append(s)
        before = cpu_seconds(proc.pid)
        time.sleep(10)
        used = cpu_seconds(proc.pid) - before
        lines = sum(1 for _ in open(log))
        print(f"1100 clients, descriptor limit 1024: {served} served, {refused} refused with an answer; "
              f"daemon CPU in the next 10 s: {used:.2f} s; log: {lines} lines")
        for s in conns:
            s.close()
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(d, ignore_errors=True)

main()
