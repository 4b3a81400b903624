"""Google's Bigtable emulator as a child process: started on a free loopback
port (`-port 0` makes it print the port it took), stopped by its PID when the
run ends, also on failure or Ctrl-C.
"""

import atexit
import os
import re
import signal
import subprocess
import threading

EMULATOR = os.environ.get(
    "CBTEMULATOR", "/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator"
)


def status_bytes(pid, field):
    """A memory figure of process `pid` from /proc/PID/status (`VmRSS`,
    `VmHWM`, ...) in bytes; 0 when the process or the field is gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


class Emulator:
    """Google's emulator, or with `command` another server that takes the
    emulator's command line and prints its first line (`tabletop serve`)."""

    def __init__(self, command=None):
        if command is None:
            if not os.access(EMULATOR, os.X_OK):
                raise RuntimeError("the Bigtable emulator is not installed at %s" % EMULATOR)
            command = [EMULATOR]
        self.proc = subprocess.Popen(
            list(command) + ["-host", "127.0.0.1", "-port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        atexit.register(self.stop)
        line = self.proc.stdout.readline().decode(errors="replace")
        m = re.search(r"running on (\S+)", line)
        if not m:
            self.stop()
            raise RuntimeError("the emulator did not start: %r" % line)
        self.addr = m.group(1)
        self.pid = self.proc.pid
        # Keep draining its output so it never blocks on a full pipe.
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        try:
            for _ in self.proc.stdout:
                pass
        except (OSError, ValueError):
            pass

    def rss_bytes(self):
        """The emulator's resident memory now (from /proc)."""
        return status_bytes(self.pid, "VmRSS")

    def peak_rss_bytes(self):
        """The emulator's peak resident memory so far (VmHWM in /proc)."""
        return status_bytes(self.pid, "VmHWM")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def stop_on_signals():
    """Turns SIGTERM and SIGHUP into SystemExit, so `finally` blocks and
    atexit handlers (which stop the emulator) run; Ctrl-C already raises
    KeyboardInterrupt."""

    def handler(signum, _frame):
        raise SystemExit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, handler)
