#!/usr/bin/env python3
"""partial_frames.py GRIDTUNED [FLAG...]: what 300 clients that each leave ~1 MB of a frame
unfinished cost a gridtuned started with FLAGs (issue 14, item 5). Prints the daemon's RSS before
and after, and how many of the connections it still holds. Compare the default with
`--max-partial-bytes 1T --max-user-clients 1000`, which lifts the caps."""
import json, os, shutil, socket, struct, subprocess, sys, tempfile, time

def rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) // 1024

def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    d = tempfile.mkdtemp(prefix="gt-audit-")
    sock = d + "/s.sock"
    proc = subprocess.Popen([sys.argv[1], "--foreground", "--socket", sock, "--wisdom", d + "/w.json", "--cache-dir",
                             d + "/cache", "--log", d + "/log", "--workers", "2", "--no-probes"] + sys.argv[2:])
    try:
        while not os.path.exists(sock):
            time.sleep(0.05)
        time.sleep(0.3)
        base = rss_mb(proc.pid)
        hello = json.dumps({"type": "hello", "id": 1, "protocol": 1}).encode()
        conns, refused = [], 0
        for _ in range(300):
            s = socket.socket(socket.AF_UNIX)
            s.connect(sock)
            s.sendall(struct.pack(">II", len(hello), 0) + hello)
            if b'"error"' in s.recv(4096):
                refused += 1
                s.close()
                continue
            try:
                s.sendall(struct.pack(">II", 1000000, 0) + b" " * 999000)
            except (BrokenPipeError, ConnectionResetError):
                pass
            s.setblocking(False)
            conns.append(s)
        time.sleep(2)
        held = 0  # a dropped connection has an error frame to read, then end of file
        for s in conns:
            try:
                s.recv(65536)
            except BlockingIOError:
                held += 1
            except ConnectionResetError:
                pass
        print(f"flags {sys.argv[2:]}: RSS {base} MB before, {rss_mb(proc.pid)} MB after 300 clients each left ~1 MB "
              f"of a frame unfinished; {held} connections still held, {refused} refused at hello")
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(d, ignore_errors=True)

main()
