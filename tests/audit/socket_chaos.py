#!/usr/bin/env python3
"""socket_chaos.py GRIDTUNED SECONDS: many clients doing what a careless or hostile client does
to a running gridtuned (issue 14): frames cut at any byte and closed, garbage, headers that
announce too much, descriptors ahead of their frames, floods of connections, requests never
read. A steady client checks after every round that the daemon still answers correctly. Prints
the rounds, the connections tried and whether the daemon survived (exit 1 if not)."""
import array, json, os, random, shutil, socket, struct, subprocess, sys, tempfile, time

def frame(obj_or_bytes, nfds=0):
    b = obj_or_bytes if isinstance(obj_or_bytes, bytes) else json.dumps(obj_or_bytes).encode()
    return struct.pack(">II", len(b), nfds) + b

HELLO = frame({"type": "hello", "id": 1, "protocol": 1})
REQUESTS = [
    {"type": "status", "id": 2}, {"type": "reports", "id": 2, "limit": 5},
    {"type": "buffer_create", "id": 2, "size": 4096}, {"type": "launch", "id": 2, "kernel": 1},
    {"type": "wait", "id": 2, "event": 7}, {"type": "kernel_load", "id": 2, "path": "/nonexistent.so", "name": "x"},
    {"type": "wisdom_clear", "id": 2}, {"type": "frobnicate", "id": 2}, {"type": "hello", "id": 2, "protocol": 1},
]

def memfd(size):
    fd = os.memfd_create("chaos", os.MFD_ALLOW_SEALING)
    os.ftruncate(fd, size)
    return fd

def send_fds(s, data, fds):
    s.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])

def one_client(sock, rng):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock)
    s.settimeout(2)
    try:
        if rng.random() < 0.8:
            s.sendall(HELLO)
        kind = rng.randrange(7)
        if kind == 0:  # a real request, cut at a random byte, then closed
            f = frame(rng.choice(REQUESTS))
            s.sendall(f[:rng.randrange(len(f) + 1)])
        elif kind == 1:  # garbage
            s.sendall(os.urandom(rng.randrange(1, 200)))
        elif kind == 2:  # a header announcing much, a few bytes
            s.sendall(struct.pack(">II", rng.choice([1000, 1 << 20, 1 << 31, 0xFFFFFFFF]), rng.randrange(6)) + b"x" * 10)
        elif kind == 3:  # descriptors ahead of or with a frame
            fds = [memfd(4096) for _ in range(rng.randrange(1, 5))]
            send_fds(s, frame({"type": "buffer_create", "id": 2, "size": 4096}, len(fds))[:rng.randrange(1, 40)], fds)
            for fd in fds:
                os.close(fd)
        elif kind == 4:  # many requests, never reading
            s.sendall(b"".join(frame(rng.choice(REQUESTS)) for _ in range(rng.randrange(1, 50))))
        elif kind == 5:  # a valid request, answered, then a half close
            s.sendall(frame(rng.choice(REQUESTS)))
            s.shutdown(socket.SHUT_WR)
        else:  # nothing at all
            pass
    except (BrokenPipeError, ConnectionResetError, socket.timeout):
        pass
    if rng.random() < 0.5:
        s.close()
        return None
    return s

def steady_check(sock):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock)
    s.settimeout(10)
    s.sendall(HELLO + frame({"type": "status", "id": 2}))
    data = b""
    while data.count(b'"type"') < 2:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    return data.count(b'"result"') == 2

def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    seconds = float(sys.argv[2])
    d = tempfile.mkdtemp(prefix="gt-audit-")
    sock = d + "/s.sock"
    proc = subprocess.Popen([sys.argv[1], "--foreground", "--socket", sock, "--wisdom", d + "/w.json", "--cache-dir",
                             d + "/cache", "--log", d + "/log", "--workers", "2", "--no-probes", "--frame-timeout", "2"])
    rng = random.Random(14)
    rounds = conns = 0
    ok = True
    try:
        while not os.path.exists(sock):
            time.sleep(0.05)
        end = time.time() + seconds
        held = []
        while time.time() < end and ok:
            for _ in range(50):
                c = one_client(sock, rng)
                conns += 1
                if c:
                    held.append(c)
            if len(held) > 300 or rng.random() < 0.2:  # many held connections close at once
                for c in held:
                    c.close()
                held = []
            ok = proc.poll() is None and steady_check(sock)
            rounds += 1
        for c in held:
            c.close()
        ok = ok and proc.poll() is None and steady_check(sock)
    finally:
        status = proc.poll()
        proc.terminate()
        proc.wait()
        print(f"{rounds} rounds, {conns} hostile connections in {seconds:.0f} s: daemon "
              f"{'survived and answered' if ok else f'FAILED (exit status {status})'}")
        if ok:
            shutil.rmtree(d, ignore_errors=True)
        else:
            print(f"its log: {d}/log")
    sys.exit(0 if ok else 1)

main()
