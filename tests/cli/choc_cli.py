"""The one helper of the cli tests (tests/cli/cli_*.py): running the choc program, and
reading what it writes (the JSON summary, CSV tables and time series, extended XYZ frames).

A driver imports it as `import choc_cli as cli`: Python puts a script's own directory first
on sys.path, so nothing needs setting, by meson or by hand. What a driver checks stays in
the driver; what two drivers did alike is here.

- Outcomes: `Failure` (a broken promise; the message says which), `Skip` (a case that
  cannot run on this machine), `check`, `run_cases` (the drivers' loop over their cases),
  `main`, `report`, `arguments`.
- Running choc: `run` (finished, with a timeout), `start` (a process to signal),
  `wait_for`, `run_summary`, `json_of`, `why_not_refused` and `report_refusals`,
  `check_refused`, `left_behind`,
  `plot_failures`, `small_file_system`, `fill`.
- Reading its outputs: `read_summary`, `data_lines`, `read_table`, `read_records`,
  `read_rows`, `read_xyz` (frames: `Frame`), `comment_fields`.
- Configs: `fixture` (tests/cli/fixtures/*.toml, the configs more than one test runs),
  `sections` and `toml_of` (a config as a table of its sections, changed one at a time),
  `reference_physics` (tests/support/reference_physics.py).
"""

import contextlib
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
# what more than one kind of test uses (reference_physics.py: tests/validate/ too)
SUPPORT = os.path.join(os.path.dirname(HERE), "support")


# --- outcomes --------------------------------------------------------------------------

class Failure(Exception):
    """A broken promise; the message says which."""


class Skip(Exception):
    """A case that cannot run here (it needs root, or a tmpfs); the message says why."""


def check(condition, message):
    if not condition:
        raise Failure(message)


def usage(doc):
    """The usage line of a driver's docstring (the line naming CHOC_EXECUTABLE) on stderr."""
    line = next(line for line in doc.splitlines() if "CHOC_EXECUTABLE" in line)
    print(line.strip(), file=sys.stderr)


def arguments(doc, count):
    """The driver's `count` arguments (CHOC_EXECUTABLE [REPO_ROOT]) as absolute paths, or
    None after the usage line when there are not that many."""
    if len(sys.argv) != count + 1:
        usage(doc)
        return None
    return [os.path.abspath(a) for a in sys.argv[1:]]


def run_cases(cases, *args, catch=(), timed=False):
    """Runs each (name, case[, argument]) of `cases` as case(*args[, argument]), printing
    `ok NAME` (with its seconds when `timed`), `skip NAME: why` (Skip) or `FAIL NAME: why`
    (a Failure, or an exception of `catch`: an output not as docs/REFERENCE.md says).
    Returns the exit status: 1 when any case failed."""
    failed = 0
    for name, case, *argument in cases:
        start = time.monotonic()
        try:
            case(*args, *argument)
        except Skip as e:
            print(f"skip {name}: {e}", flush=True)
        except Failure as e:
            print(f"FAIL {name}: {e}", flush=True)
            failed += 1
        except catch as e:
            print(f"FAIL {name}: {e!r}", flush=True)
            failed += 1
        else:
            took = f" ({time.monotonic() - start:.1f} s)" if timed else ""
            print(f"ok {name}{took}", flush=True)
    return 1 if failed else 0


def main(doc, cases, count=1, catch=(), timed=False, given=None):
    """A driver's main: its `count` arguments (CHOC_EXECUTABLE [REPO_ROOT]), the first
    `given` of them (default all) passed to each case of `cases` (`run_cases`). The exit
    status: 2 for a wrong command line."""
    args = arguments(doc, count)
    if args is None:
        return 2
    return run_cases(cases, *args[:given], catch=catch, timed=timed)


def report(name, problems):
    """Prints `ok NAME`, or `FAIL NAME: why` for each of `problems` (None, one string or a
    list of them); returns how many there were."""
    if problems is None:
        problems = []
    elif isinstance(problems, str):
        problems = [problems]
    for why in problems:
        print(f"FAIL {name}: {why}", flush=True)
    if not problems:
        print(f"ok {name}", flush=True)
    return len(problems)


# --- running choc ----------------------------------------------------------------------

def write(directory, name, text):
    """Writes `text` to DIRECTORY/NAME; returns its path."""
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def command_line(choc, command, config, quiet, args, launcher=()):
    return [*launcher, choc, command, *([config] if config is not None else []),
            *(["--quiet"] if quiet else []), *args]


def run(choc, directory, *args, toml=None, config="config.toml", command="run", quiet=True,
        timeout=60, launcher=(), **options):
    """`choc COMMAND CONFIG [--quiet] ARGS` run in `directory` (None: here), the text `toml`
    written to CONFIG first when given (config=None: no file argument, ARGS alone): the
    finished process, stdout and stderr as text. `options` go to subprocess.run (env,
    errors, ...). One that outlasts `timeout` seconds is killed, and is a Failure."""
    if toml is not None:
        write(directory, config, toml)
    line = command_line(choc, command, config, quiet, args, launcher)
    try:
        return subprocess.run(line, cwd=directory, capture_output=True, text=True,
                              timeout=timeout, **options)
    except subprocess.TimeoutExpired:
        shown = " ".join([command] + ([config] if config is not None else []))
        raise Failure(f"`choc {shown}` did not finish within {timeout} s")


def start(choc, directory, *args, toml=None, config="config.toml", command="run", quiet=True,
          **options):
    """The command of `run`, started and not waited for (to be signalled): the process.
    Its stdout and stderr go nowhere unless `options` say (stderr=subprocess.PIPE, ...)."""
    if toml is not None:
        write(directory, config, toml)
    options.setdefault("stdout", subprocess.DEVNULL)
    options.setdefault("stderr", subprocess.DEVNULL)
    return subprocess.Popen(command_line(choc, command, config, quiet, args), cwd=directory,
                            **options)


def wait_for(process, path, poll=0.001):
    """Until `path` exists (a checkpoint, a temporary) or `process` has ended."""
    while process.poll() is None and not os.path.exists(path):
        time.sleep(poll)


def run_summary(choc, directory, *args, summary="summary.json", what="choc run", **options):
    """`run`, which must exit 0: the summary it wrote (`summary`, in `directory`)."""
    result = run(choc, directory, *args, **options)
    check(result.returncode == 0, f"{what}: exit {result.returncode}: {result.stderr}")
    return read_summary(directory, summary)


def json_of(choc, command, *args, quiet_stderr=False, timeout=60):
    """The JSON that `choc COMMAND ARGS` prints (`choc collide FILE --json`), which must
    exit 0 (and, with `quiet_stderr`, print nothing on stderr)."""
    result = run(choc, None, *args, command=command, config=None, quiet=False, timeout=timeout)
    check(result.returncode == 0 and not (quiet_stderr and result.stderr),
          f"exit status {result.returncode}: {result.stderr!r}")
    return json.loads(result.stdout)


def refusal_problem(result, all_of=(), any_of=(), blank_lines=False, quiet_stdout=False):
    """Why `result` is not a clean refusal, or None: exit status 2 and one stderr line, a
    `choc: error:` line naming every one of `all_of` and one of `any_of` at least (and,
    with `quiet_stdout`, nothing on stdout). `blank_lines`: blank lines of stderr are not
    counted."""
    lines = [line for line in result.stderr.splitlines() if line.strip() or not blank_lines]
    if result.returncode != 2:
        return f"exit status {result.returncode}, expected 2; stderr: {result.stderr!r}"
    if len(lines) != 1 or not lines[0].startswith("choc: error:"):
        return f"expected one 'choc: error:' line, got {result.stderr!r}"
    for name in all_of:
        if name not in lines[0]:
            return f"message {lines[0]!r} does not name {name!r}"
    if any_of and not any(name in lines[0] for name in any_of):
        return f"message names none of {list(any_of)}: {lines[0]!r}"
    if quiet_stdout and result.stdout:
        return f"printed results anyway: {result.stdout!r}"
    return None


def left_behind(directory, keep=("config.toml",)):
    """The entries of `directory` but `keep`, sorted: what a refused run left."""
    return sorted(set(os.listdir(directory)) - set(keep))


def check_refused(result, directory=None, *, all_of=(), any_of=(), keep=()):
    """A clean refusal (`refusal_problem`), and nothing left in `directory` but config.toml
    and `keep`."""
    why = refusal_problem(result, all_of, any_of)
    check(why is None, why)
    if directory is not None:
        left = left_behind(directory, {"config.toml", *keep})
        check(not left, f"left behind {left}")


def why_not_refused(choc, command, name, toml, args, names):
    """Why `choc COMMAND NAME ARGS`, with `toml` in the file NAME (None: no file), is not
    refused cleanly, or None: exit 2, one `choc: error:` line naming one of `names`,
    nothing on stdout, and no file written (no plot left behind)."""
    with tempfile.TemporaryDirectory(prefix=f"choc-{command}-") as directory:
        result = run(choc, directory, *args, toml=toml, config=name, command=command,
                     quiet=False)
        left = left_behind(directory, {name})
    why = refusal_problem(result, any_of=names, blank_lines=True, quiet_stdout=True)
    if why is None and left:
        why = f"left files behind: {left}"
    return why


def report_refusals(choc, command, name, cases):
    """`why_not_refused` of each (case name, text of NAME or None, arguments, names) of
    `cases`, reported: how many failed."""
    return sum(report(case, why_not_refused(choc, command, name, toml, args, names))
               for case, toml, args, names in cases)


# The first bytes of a PNG and of an SVG file.
PLOTS = [("plot.png", b"\x89PNG\r\n\x1a\n"), ("plot.SVG", b"<?xml")]


def plot_failures(choc, command, path):
    """`choc COMMAND PATH --plot NAME`, a PNG and an SVG (the extension's case ignored):
    what is wrong, if anything; each must exit 0 and write that one file, a PNG or an SVG
    from its first bytes."""
    failures = []
    for name, magic in PLOTS:
        with tempfile.TemporaryDirectory(prefix=f"choc-{command}-") as directory:
            result = run(choc, directory, path, "--plot", name, command=command, config=None,
                         quiet=False)
            files = sorted(os.listdir(directory))
            head = b""
            if name in files:
                with open(os.path.join(directory, name), "rb") as f:
                    head = f.read(len(magic))
        if result.returncode != 0 or files != [name] or head != magic:
            failures.append(f"--plot {name}: status {result.returncode}, files {files}, "
                            f"starts {head!r}, stderr {result.stderr!r}")
    return failures


@contextlib.contextmanager
def small_file_system(prefix, size="4m"):
    """A tmpfs of `size` mounted on a new directory, unmounted and removed afterwards: the
    directory. Needs root and a machine that lets it mount (Skip otherwise)."""
    if os.geteuid() != 0:
        raise Skip("mounting a tmpfs needs root")
    d = tempfile.mkdtemp(prefix=prefix)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", d],
                      capture_output=True).returncode != 0:
        os.rmdir(d)
        raise Skip("mount -t tmpfs not permitted here")
    try:
        yield d
    finally:
        subprocess.run(["umount", d])
        os.rmdir(d)


def fill(directory, spare):
    """Fills the file system of `directory` with the file `filler` but for `spare` bytes."""
    path = os.path.join(directory, "filler")
    with open(path, "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"\0" * 4096)
        except OSError:
            pass
    os.truncate(path, os.path.getsize(path) - spare)


# --- reading the outputs ---------------------------------------------------------------

def read_summary(directory, name="summary.json"):
    """The JSON summary DIRECTORY/NAME (a Failure when it is missing or not JSON)."""
    path = os.path.join(directory, name)
    if not os.path.isfile(path):
        raise Failure(f"no {name} written")
    with open(path) as f:
        try:
            return json.load(f)
        except ValueError as e:
            raise Failure(f"{name} is not JSON: {e}")


def data_lines(path, keepends=False):
    """The lines of a CSV file choc wrote that are not `#` comments (the time series'
    provenance, a histogram series' snapshot table): the header, then the rows."""
    with open(path) as f:
        if keepends:
            return [line for line in f if not line.startswith("#")]
        return [line for line in f.read().splitlines() if not line.startswith("#")]


def read_table(path):
    """(header, rows as lists of floats) of a CSV file choc wrote, `#` lines left out (a
    Failure when there is no such file)."""
    check(os.path.isfile(path), f"no {os.path.basename(path)} written")
    lines = data_lines(path)
    return lines[0].split(","), [[float(x) for x in line.split(",")] for line in lines[1:]]


def read_records(path):
    """The rows of a CSV file choc wrote as {column: float}, `#` lines left out."""
    header, rows = read_table(path)
    return [dict(zip(header, row)) for row in rows]


def read_rows(path):
    """The rows of a CSV file choc wrote as {column: text} (csv.DictReader), `#` lines left
    out."""
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def comment_fields(comment):
    """key=value and key="quoted value" pairs of an extended XYZ comment line (a backslash
    escapes the next character inside quotes, as choc writes its provenance keys)."""
    fields, i = {}, 0
    while i < len(comment):
        while i < len(comment) and comment[i] == " ":
            i += 1
        if i == len(comment):
            break
        eq = comment.index("=", i)
        key, i = comment[i:eq], eq + 1
        value = ""
        if i < len(comment) and comment[i] == '"':
            i += 1
            while comment[i] != '"':
                if comment[i] == "\\":
                    i += 1
                value += comment[i]
                i += 1
            i += 1
        else:
            end = comment.find(" ", i)
            end = len(comment) if end < 0 else end
            value, i = comment[i:end], end
        fields[key] = value
    return fields


class Frame:
    """One frame of an extended XYZ file: its count line (`count`), its comment line's
    fields (`fields`, `time`) and its particle lines (`lines`, as many as the file has of
    the `count` it declares)."""

    def __init__(self, count, comment, lines):
        self.count, self.comment, self.lines = count, comment, lines
        self.fields = comment_fields(comment)
        self.time = float(self.fields["Time"]) if "Time" in self.fields else None

    def properties(self):
        """{name: (first word, width)} of the particle lines, from Properties=."""
        props, at, out = self.fields["Properties"].split(":"), 0, {}
        for name, width in zip(props[::3], props[2::3]):
            out[name] = (at, int(width))
            at += int(width)
        return out

    def column(self, name, kind=float):
        """Per particle, the values of property `name` (a list of its width)."""
        at, width = self.properties()[name]
        return [[kind(w) for w in line.split()[at:at + width]] for line in self.lines]


def read_xyz(path):
    """Every frame of an extended XYZ file, in order (blank lines between frames skipped)."""
    with open(path) as f:
        lines = f.read().splitlines()
    frames, i = [], 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        n = int(lines[i])
        comment = lines[i + 1] if i + 1 < len(lines) else ""
        frames.append(Frame(n, comment, lines[i + 2:i + 2 + n]))
        i += 2 + n
    return frames


# --- configs ---------------------------------------------------------------------------

def fixture(name):
    """The text of tests/cli/fixtures/NAME, a config more than one test runs."""
    with open(os.path.join(FIXTURES, name)) as f:
        return f.read()


# The sections of a config in the order `toml_of` writes them; species and walls are
# arrays of tables.
SECTIONS = ("box", "species", "collisions", "walls", "init", "run", "output")
HEADER = re.compile(r"^\[\[?(\w+)\]\]?$")


def toml_of(base, **changes):
    """TOML text of the sections of `base` ({"dimension": "3", "box": "...", ...}) with
    `changes` (None drops a section): dimension first, then each section under its header,
    with a blank line before it. A section's text may hold more tables of its kind
    ('name = "A"\\n\\n[[species]]\\nname = "B"')."""
    sections = dict(base, **changes)
    lines = []
    if sections.get("dimension") is not None:
        lines.append("dimension = " + sections["dimension"])
    for name in SECTIONS:
        body = sections.get(name)
        if body is None:
            continue
        header = "[[" + name + "]]" if name in ("species", "walls") else "[" + name + "]"
        lines += ["", header, body]
    return "\n".join(lines) + "\n"


def sections(text):
    """The sections of a config as `toml_of` takes them: the inverse of `toml_of` for a
    config of the sections it knows (a fixture)."""
    out, name = {}, None
    for line in text.splitlines():
        match = HEADER.match(line)
        if match:
            name = match.group(1)
            if name in out:  # another table of an array: kept in its section's text
                out[name] = out[name].rstrip("\n") + "\n\n" + line
            else:
                out[name] = None
        elif name is None:
            if line.startswith("dimension = "):
                out["dimension"] = line[len("dimension = "):]
        elif line.strip() or out[name] is not None:
            out[name] = line if out[name] is None else out[name] + "\n" + line
    return {k: v.rstrip("\n") for k, v in out.items()}


def reference_physics():
    """tests/support/reference_physics.py, the reference formulas of docs/PHYSICS.md in
    arithmetic independent of choc's (shared with tests/validate/)."""
    if SUPPORT not in sys.path:
        sys.path.insert(0, SUPPORT)
    import reference_physics
    return reference_physics
