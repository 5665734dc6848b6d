#!/usr/bin/env python3
"""A debuginfod-protocol server that misbehaves on purpose, for the tests.

Serves on 127.0.0.1 (port 0: any free one; the port is printed on stdout's
first line). The first path component chooses the behaviour, so that one
DEBUGINFOD_URLS entry per behaviour points at the same process:

  /file/NAME/buildid/...      200 with the file DIR/NAME (whatever the id)
  /stall/...                  reads the request, never answers
  /trickle/...                200, then 2 KB/s for ever
  /flood/...                  200 claiming 50 GB, zeros as fast as it can
  /stream/...                 200 without a length, zeros as fast as it can
  /slow/S/NAME/buildid/...    waits S seconds, then as /file/NAME
  /gzipbomb/...               200, Content-Encoding gzip: 1 GiB of zeros in ~1 MB
  /redirect-loop/...          302 to the same URL, for ever
  /redirect-ftp/...           302 to an ftp:// URL
  /status/N/...               HTTP N with a short body
  /html/...                   200, text/html, a login page
  /count                      requests seen per behaviour, as JSON
"""
import gzip
import io
import json
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIR = sys.argv[1] if len(sys.argv) > 1 else "."
COUNTS = {}
LOCK = threading.Lock()
BOMB = None
STOP = threading.Event()


def gzip_bomb():
    """1 GiB of zeros, gzip-compressed (about 1 MB), built once."""
    global BOMB
    with LOCK:
        if BOMB is None:
            out = io.BytesIO()
            with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9) as z:
                block = bytes(1 << 20)
                for _ in range(1024):
                    z.write(block)
            BOMB = out.getvalue()
    return BOMB


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        sys.stderr.write("%s %s\n" % (self.path, fmt % args))

    def send(self, status, body, ctype="application/octet-stream", extra=()):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def stream(self, chunk, pause, claimed=None):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if claimed is not None:
            self.send_header("Content-Length", str(claimed))
        self.end_headers()
        try:
            while not STOP.is_set():
                self.wfile.write(chunk)
                self.wfile.flush()
                if pause:
                    time.sleep(pause)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def do_GET(self):
        parts = self.path.split("/")
        mode = parts[1] if len(parts) > 1 else ""
        with LOCK:
            COUNTS[mode] = COUNTS.get(mode, 0) + 1
        if mode == "count":
            with LOCK:
                self.send(200, json.dumps(COUNTS).encode(), "application/json")
        elif mode == "file":
            with open(DIR + "/" + parts[2], "rb") as f:
                self.send(200, f.read())
        elif mode == "slow":
            time.sleep(float(parts[2]))
            with open(DIR + "/" + parts[3], "rb") as f:
                self.send(200, f.read())
        elif mode == "stream":
            self.stream(bytes(1 << 16), 0)
        elif mode == "stall":
            STOP.wait(3600)
            self.close_connection = True
        elif mode == "trickle":
            self.stream(b"t" * 200, 0.1)
        elif mode == "flood":
            self.stream(bytes(1 << 16), 0, claimed=50 * 10**9)
        elif mode == "gzipbomb":
            self.send(200, gzip_bomb(), extra=[("Content-Encoding", "gzip")])
        elif mode == "redirect-loop":
            self.send(302, b"", extra=[("Location", self.path)])
        elif mode == "redirect-ftp":
            self.send(302, b"", extra=[("Location", "ftp://127.0.0.1/debuginfo")])
        elif mode == "status":
            self.send(int(parts[2]), b"no\n", "text/plain")
        elif mode == "html":
            self.send(200, b"<html><body><form>Log in</form></body></html>\n", "text/html; charset=utf-8")
        else:
            self.send(404, b"not found\n", "text/plain")


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever(poll_interval=0.1)
    finally:
        STOP.set()


if __name__ == "__main__":
    main()
