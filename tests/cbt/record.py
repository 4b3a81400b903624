#!/usr/bin/env python3
"""Re-records the cbt transcripts in this directory from the real `cbt` CLI
talking to the real Bigtable emulator.

Usage:
    python3 tests/cbt/record.py [--check] [-jN] [FILE.cbt ...]

With no files, every *.cbt here is recorded, except those marked
`%playground-only`. Each file gets a fresh emulator (so tables never leak
between scenarios), its `%file` fixtures are written to a temporary working
directory, and every `$ <command>` line is run as

    bash -c 'cbt -project p -instance i <command>'

with TZ=UTC and LC_ALL=C.UTF-8, so quoting works exactly as a person typing
it would get. The recorded block after each command (stdout `>`, stderr
`2>`, exit status `?`) is replaced; everything else (comments, directives,
`%diverges` notes and their `%production` blocks) is kept as written.

With --check nothing is written: the script exits 1 if any recorded block
would change (the live differential check CI runs).

Needs: /usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator and
`cbt` on PATH (or CBT / CBTEMULATOR in the environment). See README.md for
the transcript format. Files record in parallel (-jN, default: one per
CPU), each against its own emulator; a full run takes a few minutes because
every cbt invocation costs most of a second.
"""

import concurrent.futures
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EMULATOR = os.environ.get(
    "CBTEMULATOR", "/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator"
)
CBT = os.environ.get("CBT", shutil.which("cbt") or "/usr/bin/cbt")

# Lines real cbt writes to stderr that depend on the machine, not on the
# command: the gcloud credential notice.
NOISE = [re.compile(rb"^-creds flag unset, will use gcloud credential$")]
# Go's log package puts "2006/01/02 15:04:05 " before each entry.
LOG_PREFIX = re.compile(rb"^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d ")
# A cell timestamp as cbt prints it.
CELL_TIME = re.compile(rb"\d{4,}/\d\d/\d\d-\d\d:\d\d:\d\d\.\d{6}")

BLOCK_PREFIXES = (">", "2>", "?", "%no-eol")


def escape_line(b):
    """The transcript form of one output line (without its newline)."""
    try:
        s = b.decode("utf-8")
        plain = all(c == "\t" or (ord(c) >= 0x20 and not 0x7F <= ord(c) < 0xA0) for c in s)
    except UnicodeDecodeError:
        plain = False
    if plain and not s.endswith((" ", "\t")):
        return (" " + s) if s else ""
    # Escaped form: bytes outside printable ASCII (and trailing blanks, which
    # editors strip) as \xNN, a backslash as \\.
    trail = len(b) - len(b.rstrip(b" \t"))
    out = []
    for n, byte in enumerate(b):
        if n >= len(b) - trail:
            out.append("\\x%02x" % byte)
            continue
        if byte == 0x5C:
            out.append("\\\\")
        elif 0x20 <= byte < 0x7F or byte == 0x09:
            out.append(chr(byte))
        else:
            out.append("\\x%02x" % byte)
    return "\\ " + "".join(out)


def unescape_line(s):
    """Inverse of escape_line: the bytes of one line."""
    if s.startswith("\\ "):
        body = s[2:]
        out = bytearray()
        i = 0
        while i < len(body):
            c = body[i]
            if c == "\\" and i + 1 < len(body):
                if body[i + 1] == "\\":
                    out.append(0x5C)
                    i += 2
                    continue
                if body[i + 1] == "x":
                    out.append(int(body[i + 2 : i + 4], 16))
                    i += 4
                    continue
            out.extend(c.encode("utf-8"))
            i += 1
        return bytes(out)
    if s.startswith(" "):
        s = s[1:]
    return s.encode("utf-8")


def block_lines(prefix, data, eol_marker):
    """Transcript lines for one stream."""
    if not data:
        return []
    lines = data.split(b"\n")
    no_eol = lines[-1] != b""
    if not no_eol:
        lines = lines[:-1]
    out = [prefix + escape_line(l) for l in lines]
    if no_eol:
        out.append(eol_marker)
    return out


class Emulator:
    def __init__(self):
        self.proc = subprocess.Popen(
            [EMULATOR, "-host", "127.0.0.1", "-port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        line = self.proc.stdout.readline().decode()
        m = re.search(r"running on (\S+)", line)
        if not m:
            self.stop()
            raise RuntimeError("emulator did not start: %r" % line)
        self.addr = m.group(1)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def parse_file(text):
    """Splits a transcript into items: ('text', line) kept verbatim,
    ('cmd', line, recorded_lines, kept_lines), ('file', name, lines)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines = lines[:-1]
    items = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            i += 1
            recorded = []
            while i < len(lines) and lines[i].startswith(BLOCK_PREFIXES):
                recorded.append(lines[i])
                i += 1
            # Hand-written annotations stay: %diverges / %pending notes and
            # the %production block that follows them.
            kept = []
            while i < len(lines) and lines[i].startswith(("%diverges", "%pending")):
                kept.append(lines[i])
                i += 1
            if kept and i < len(lines) and lines[i] == "%production":
                kept.append(lines[i])
                i += 1
                while i < len(lines) and lines[i].startswith(BLOCK_PREFIXES):
                    kept.append(lines[i])
                    i += 1
            items.append(("cmd", line, recorded, kept))
            continue
        if line.startswith("%file "):
            name = line[len("%file ") :].strip()
            body = [line]
            i += 1
            while i < len(lines) and lines[i] != "%end":
                body.append(lines[i])
                i += 1
            body.append("%end")
            i += 1
            items.append(("file", name, body))
            continue
        items.append(("text", line))
        i += 1
    return items


def file_bytes(body):
    """The contents of a %file fixture from its transcript lines."""
    data = bytearray()
    no_eol = False
    for l in body[1:-1]:
        if l == "%no-eol":
            no_eol = True
            continue
        if not l.startswith("|"):
            raise ValueError("bad %%file line: %r" % l)
        data += unescape_line(l[1:]) + b"\n"
    if no_eol and data.endswith(b"\n"):
        data = data[:-1]
    return bytes(data)


def clean_stderr(data):
    out = []
    for line in data.split(b"\n"):
        line = LOG_PREFIX.sub(b"", line, count=1)
        if any(p.match(line) for p in NOISE):
            continue
        out.append(line)
    return b"\n".join(out)


def mask_now(data, cutoff_year):
    def repl(m):
        year = int(m.group(0).split(b"/")[0])
        return b"<now>" if year >= cutoff_year else m.group(0)

    return CELL_TIME.sub(repl, data)


def record(path, check):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if "\n%playground-only" in "\n" + text:
        return True
    items = parse_file(text)
    cutoff = None
    m = re.search(r"^%mask-now-after (\d{4})", text, re.M)
    if m:
        cutoff = int(m.group(1))
    work = tempfile.mkdtemp(prefix="cbt-record-")
    emu = Emulator()
    try:
        env = dict(os.environ)
        env.update(
            {
                "BIGTABLE_EMULATOR_HOST": emu.addr,
                "TZ": "UTC",
                "LC_ALL": "C.UTF-8",
                "HOME": work,
            }
        )
        out_lines = []
        for item in items:
            if item[0] == "text":
                out_lines.append(item[1])
                continue
            if item[0] == "file":
                _, name, body = item
                with open(os.path.join(work, name), "wb") as f:
                    f.write(file_bytes(body))
                out_lines.extend(body)
                continue
            _, line, _, kept = item
            cmd = line[2:]
            proc = subprocess.run(
                # exec -a: cbt prints its argv[0] in usage text.
                ["bash", "-c", "exec -a cbt %s -project p -instance i %s" % (CBT, cmd)],
                cwd=work,
                env=env,
                capture_output=True,
                timeout=60,
            )
            stdout, stderr = proc.stdout, clean_stderr(proc.stderr)
            if cutoff is not None:
                stdout, stderr = mask_now(stdout, cutoff), mask_now(stderr, cutoff)
            out_lines.append(line)
            out_lines.extend(block_lines(">", stdout, "%no-eol"))
            out_lines.extend(block_lines("2>", stderr, "%no-eol-stderr"))
            if proc.returncode != 0:
                out_lines.append("? %d" % proc.returncode)
            out_lines.extend(kept)
        new = "\n".join(out_lines) + "\n"
    finally:
        emu.stop()
        shutil.rmtree(work, ignore_errors=True)
    if new == text:
        return True
    if check:
        print("%s: recorded output differs from the live cbt" % os.path.basename(path))
        return False
    with open(path, "w", encoding="utf-8") as f:
        f.write(new)
    print("recorded %s" % os.path.basename(path))
    return True


def main(argv):
    check = "--check" in argv
    jobs = os.cpu_count() or 2
    files = []
    for a in argv:
        if a == "--check":
            continue
        if a.startswith("-j"):
            jobs = int(a[2:])
            continue
        files.append(a)
    if not files:
        files = sorted(
            os.path.join(HERE, f) for f in os.listdir(HERE) if f.endswith(".cbt")
        )
    # Each file has its own emulator, so files record in parallel.
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(lambda p: record(p, check), files))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
