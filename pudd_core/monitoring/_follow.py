"""Following a log that keeps growing, fed to the incremental monitor as it grows.

The log is a CSV or JSON lines file (``.jsonl``, ``.ndjson``: one JSON object per line) that
rows are appended to, or a folder of Parquet parts. A compressed file is refused: it does not
grow by rows appended (a compressor writes its stream whole, or in blocks that end with it).

The follower remembers where it is (the CSV's bytes read; the parts read), never reads the log
from the start again, and hands out one line of JSON per tested chunk. Its state file holds
the monitor, that position and the lines not yet written; it is replaced whole (write, then
rename) after each read, before any of the read's lines is written, and a counter in its
first bytes is advanced in place after each line. The state file is data (JSON and NumPy
arrays with a checksum, :mod:`pudd_core.monitoring._state`), never a pickle, and it is held by
one follower at a time (a lock beside it, ``STATE.lock``). So a process killed at any moment and
started again with the same state file repeats no chunk and loses none, except in the few
microseconds between writing a line and advancing the counter, where the line is written
again (each line names its chunk).

The log is **appended to only**: rows already read are final. A CSV that shrinks, or whose
first bytes change, is refused (rewritten or replaced); rows without a label stay unlabelled
(their chunk is tested on its labelled rows, as the batch monitor does); a pending tail whose
labels would arrive by rewriting those rows is not followed (run the batch monitor on the
rewritten file, or :meth:`~pudd_core.monitoring.Monitor.rewind` in the library).

Labels written later to a second file, keyed by a prediction id, are followed with the log
(``labels=``: a second follower of that file, read before the log at each step, its position
in the state): the monitor is then a :class:`~pudd_core.monitoring.LabelJoin`, which rewinds
and feeds again the rows of a chunk still waiting when its labels come.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pudd_core._validation import ParameterError
from pudd_core.monitoring._fields import COMPRESSIONS
from pudd_core.monitoring._incremental import Monitor
from pudd_core.monitoring._labels import LabelJoin, LabelSink
from pudd_core.monitoring._log import (
    BATCH_ROWS,
    JSON_LINES,
    JSON_LINES_SUFFIXES,
    batches,
    compression_of,
)
from pudd_core.monitoring._result import ChunkRecord, ChunkSpan
from pudd_core.monitoring._state import MAGIC, dumps, loads, write_atomic

__all__ = ["Follower", "chunk_json"]

#: What a follower's state file holds (``_state``'s layout: its 8 bytes after the magic
#: count the lines written of the saved outbox).
STATE_KIND = "pudd-lab monitor --follow"
#: Bytes of a CSV read per step at most (about 100k rows of a 10-class log).
MAX_READ = 16 << 20
#: Bytes at the start of a CSV whose hash is kept, to recognise the same log on a restart.
HEAD_BYTES = 1 << 16
#: Bytes before the position whose hash is checked before each read: the rows read last.
TAIL_BYTES = 1 << 12
#: What a follower does when its CSV is rotated (renamed away and replaced, or truncated):
#: stop, saying so (the default), or go on with the new file from its first row.
ON_ROTATION = ("stop", "continue")


def chunk_json(span: ChunkSpan, record: ChunkRecord,
               hits: Mapping[str, tuple[int, ...]]) -> dict[str, Any]:
    """One tested chunk as a strict-JSON object (NaN as null): where it lies, PUDD's result.

    The keys are the columns of :meth:`MonitorResult.to_frame`, with ``cut_p_values`` a list
    and ``baselines`` the baselines that fired on the chunk.
    """

    def num(v: float) -> float | None:
        return None if math.isnan(v) else float(v)

    return {
        "chunk": span.index, "first_row": span.first_row, "last_row": span.last_row,
        "n_rows": span.n_rows, "n_labelled": span.n_labelled, "start": span.start,
        "end": span.end, "accuracy": num(record.accuracy), "pu_mean": num(record.pu_mean),
        "pu_median": num(record.pu_median), "p_value": num(record.p_value),
        "cut_point": record.cut_point, "alarm": bool(record.alarm),
        "floored_cells": record.floored_cells, "no_test": record.no_test,
        "cut_p_values": [[k, num(p)] for k, p in record.cut_p_values],
        "baselines": sorted(name for name, h in hits.items() if h),
    }


@dataclass
class _Position:
    """Where the follower is in the log."""

    kind: str  # "csv" or "parts"
    offset: int = 0  # csv: bytes read, header included
    header: bytes = b""
    head_sha: str = ""  # csv: sha256 of the first min(offset, HEAD_BYTES) bytes
    hashed: int = 0  # csv: how many bytes head_sha covers
    parts: list[str] = field(default_factory=list)  # parts: the names read, in order
    head: bytes = b""  # csv: the first min(offset, TAIL_BYTES) bytes (a rewrite or a rotation?)
    tail_sha: str = ""  # csv: sha256 of the TAIL_BYTES bytes before offset
    dev: int = 0  # csv: the file's identity (device, inode), to see it replaced
    ino: int = 0
    files: int = 1  # csv: the files followed so far (1 + the rotations gone through)
    sniff: bool = False  # csv: a new file whose first line may be the header (not read yet)
    started: bool = False  # JSON lines: the columns read from the first line (no header)


def _sha(fd: int, start: int, stop: int) -> str:
    """SHA-256 of the file's bytes ``start:stop`` (fewer if it is shorter)."""
    return hashlib.sha256(os.pread(fd, max(0, stop - start), start)).hexdigest()


def _find_inode(folder: str, dev: int, ino: int) -> str | None:
    """The path in ``folder`` of the file with this identity (a log renamed away), if any."""
    try:
        with os.scandir(folder) as it:
            for entry in it:
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if (st.st_dev, st.st_ino) == (dev, ino) and entry.is_file(follow_symlinks=False):
                    return entry.path
    except OSError:
        return None
    return None


class Follower:
    """A growing log fed to a :class:`Monitor`, its lines handed out, its state kept.

    ``source``: a CSV file that rows are appended to, or a folder whose ``*.parquet`` parts
    are read once each, in name order. ``key`` says which log and options the state belongs
    to; a state file written with another key is refused. Call :meth:`read` until it returns
    False (nothing new), write each of :attr:`outbox`'s lines and call :meth:`written` after
    each.

    A CSV is read through an open file, and before each read the follower checks that the
    bytes it read last are still there (the first 64 KiB and the last 4 KiB read) and that
    the path still names that file. A log rotated by renaming it away and creating a new one
    is read to its end first; then, as for one truncated (``copytruncate``), the follower
    stops with a :class:`ParameterError` saying so (``on_rotation="stop"``) or goes on with
    the new file from its first row, numbering its rows after the old ones
    (``on_rotation="continue"``), a line in :attr:`notices` saying what happened. A log whose
    rows already read were rewritten in place is always refused. On a restart, a log
    renamed away while the follower was stopped is found in its folder and read to its end.

    ``labels``: a second file (a CSV or JSON lines file appended to, or a folder of Parquet
    parts) whose rows (an id and a label) ``make_monitor()``'s :class:`LabelJoin` joins to
    the log's; it is followed with the same checks, and read before the log at each step.
    ``position`` is for that second follower: where the state left it.
    """

    def __init__(self, source: str | os.PathLike[str],
                 make_monitor: Callable[[], Monitor | LabelJoin | LabelSink],
                 key: Mapping[str, Any], state: str | os.PathLike[str] | None = None,
                 on_rotation: str = "stop", labels: str | os.PathLike[str] | None = None,
                 position: _Position | None = None) -> None:
        if on_rotation not in ON_ROTATION:
            raise ParameterError("on_rotation", f"on_rotation must be 'stop' or 'continue', got "
                                                f"{on_rotation!r}", ON_ROTATION)
        self.on_rotation = on_rotation
        #: What happened to the log that a person should hear of (rotations), in order;
        #: the command line prints and clears them after each read.
        self.notices: list[str] = []
        self._log_fd: int | None = None
        self.source = os.path.abspath(os.fspath(source))
        kind = "parts" if os.path.isdir(self.source) else "csv"
        if kind == "csv" and not os.path.isfile(self.source):
            raise FileNotFoundError(f"no prediction log at {os.fspath(source)}: give a CSV file "
                                    "that rows are appended to, or a folder of Parquet parts")
        self.key = {"source": self.source, "kind": kind, **key}
        #: The labels file's follower (``labels``: a second file that the labels of
        #: ``make_monitor()``'s :class:`LabelJoin` are appended to), its position in the state.
        self.labels: Follower | None = None
        self._labels_pos: _Position | None = None
        if labels is not None:
            self.key["labels"] = os.path.abspath(os.fspath(labels))
        #: A JSON lines log (by its suffix): each line one row, no header line.
        self.json_lines = kind == "csv" and self.source.lower().endswith(JSON_LINES_SUFFIXES)
        self.state = None if state is None else os.fspath(state)
        self.outbox: list[str] = []
        self._fd: int | None = None
        self._lock_fd: int | None = None
        self._written = 0
        if self.state is not None:
            self._lock(self.state)
        self.monitor: Monitor | LabelJoin | LabelSink
        try:
            if self.state is not None and os.path.exists(self.state):
                self.monitor, self.pos = self._load(self.state)
            elif position is not None:  # a labels file's follower, resumed with the log's
                self.monitor, self.pos = make_monitor(), position
                if position.kind != kind:
                    raise ParameterError("labels", f"{self.source} was a "
                                         f"{'folder' if position.kind == 'parts' else 'file'} "
                                         "when the state was written; give the same labels")
                if kind == "csv":
                    self._reopen("the labels' position")
            else:
                self.monitor, self.pos = make_monitor(), _Position(kind)
                if kind == "csv":
                    self._open(self.source)
                    self._followable(os.fspath(source))
                    if os.pread(self._fd_log(), 4, 0) == b"PAR1":
                            raise ParameterError("source", f"{os.fspath(source)} is a Parquet "
                                                 "file, which cannot grow: follow a CSV, or "
                                                 "a folder that new Parquet parts are "
                                                 "written to")
                self._start()
            if labels is not None:
                self._follow_labels(labels, on_rotation)
        except BaseException:
            self.close()
            raise

    def _follow_labels(self, labels: str | os.PathLike[str], on_rotation: str) -> None:
        """Follow the labels file too, from where the state left it (or its start)."""
        join = self.monitor
        if not isinstance(join, LabelJoin):
            raise ParameterError("labels", "labels from a second file need a LabelJoin as "
                                           "the monitor")
        sink = LabelSink(join)
        if not os.path.exists(labels):
            raise FileNotFoundError(f"no labels file at {os.fspath(labels)}: give a CSV or JSON "
                                    "lines file that labels are appended to (it may be empty), "
                                    "or a folder that Parquet parts of labels are written to")
        self.labels = Follower(labels, lambda: sink, {}, None, on_rotation,
                               position=self._labels_pos)
        self._labels_pos = self.labels.pos

    def _followable(self, given: str) -> None:
        """Refuse a compressed log (by its suffix or its first bytes): it cannot be followed."""
        method = compression_of(os.pread(self._fd_log(), 8, 0))
        suffix = next((sfx for _, name, sfx in COMPRESSIONS
                       if self.source.lower().endswith(sfx)), None)
        if method is None and suffix is None:
            return
        what = f"{method}-compressed" if method else f"named as compressed ({suffix})"
        raise ParameterError(
            "follow", f"{given} is {what}: a compressed file cannot be followed (it does not "
            "grow by appending rows; its compressor writes it as a whole). Follow the "
            "uncompressed log the service writes (CSV or JSON lines), before it is compressed "
            "(logrotate's compress and delaycompress act on rotated files only), or run the "
            "monitor without --follow on the compressed file")

    # --- the state file ---------------------------------------------------------------------
    def _lock(self, path: str) -> None:
        """Hold ``path.lock`` while following: a second follower of the state is refused.

        The lock is the kernel's (``flock``), so it goes with the process, however it ends;
        the file keeps the holder's process id for the message.
        """
        import fcntl

        lock = f"{path}.lock"
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise ParameterError("state", f"the lock file {lock} of --state {path} cannot be "
                                          f"opened ({exc.strerror}); remove it if it is a "
                                          "link or not a file, or give another state path") \
                from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise ParameterError("state", f"--state {path} is in use by process {holder} "
                                          "(another monitor --follow); stop it first, or give "
                                          "another state path") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        self._lock_fd = fd

    def _load(self, path: str) -> tuple[Monitor, _Position]:
        with open(path, "rb") as fh:
            raw = fh.read()
        saved = loads(raw, kind=STATE_KIND, where=f"--state {path}")
        written = int.from_bytes(raw[len(MAGIC):len(MAGIC) + 8], "little")
        if not (isinstance(saved, dict) and isinstance(saved.get("monitor"), Monitor | LabelJoin)
                and isinstance(saved.get("labels_pos", _Position("csv")), _Position)
                and isinstance(saved.get("pos"), _Position)
                and isinstance(saved.get("outbox"), list)
                and 0 <= written <= len(saved["outbox"])):
            raise ParameterError("state", f"--state {path} is not a state file of monitor "
                                          "--follow; give a new path, or the file it wrote")
        if saved["key"] != self.key:
            diff = [f"{k}: {saved['key'].get(k)!r} there, {v!r} here"
                    for k, v in self.key.items() if saved["key"].get(k) != v]
            raise ParameterError("state", f"--state {path} was written for another log or "
                                 f"other options ({'; '.join(diff)}); give the same log and "
                                 "options, or a new state path")
        pos: _Position = saved["pos"]
        self.monitor, self.pos = saved["monitor"], pos
        self._labels_pos = saved.get("labels_pos")
        self.outbox = list(saved["outbox"][written:])
        self._written = written
        self._fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        if pos.kind == "csv":
            self._reopen(path)
        return saved["monitor"], pos

    def _save(self) -> None:
        """Replace the state file whole: the monitor, the position, the lines to write."""
        if self.state is None:
            return
        saved = {"key": self.key, "pos": self.pos, "monitor": self.monitor,
                 "outbox": self.outbox}
        if self.labels is not None:
            saved["labels_pos"] = self.labels.pos
        write_atomic(self.state, dumps(saved, kind=STATE_KIND))
        if self._fd is not None:
            os.close(self._fd)
        self._fd = os.open(self.state, os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        self._written = 0

    def written(self) -> None:
        """The first line of :attr:`outbox` was written: drop it and count it in the state."""
        self.outbox.pop(0)
        self._written += 1
        if self._fd is not None:  # 8 bytes in place: one write, whole or not at all
            os.pwrite(self._fd, self._written.to_bytes(8, "little"), len(MAGIC))

    def close(self) -> None:
        """Close the state file (it stays, ready for a restart) and let go of its lock."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None
        if self._log_fd is not None:
            os.close(self._log_fd)
            self._log_fd = None
        if getattr(self, "labels", None) is not None:
            assert self.labels is not None
            self.labels.close()

    # --- reading ----------------------------------------------------------------------------
    def _start(self) -> None:
        """Check the format against the log's columns, where they can be read already."""
        if self.pos.kind == "csv":
            self._csv_header()
        else:
            parts = self._parts()
            if parts:
                import pyarrow.parquet as pq

                self.monitor.start(pq.ParquetFile(parts[0][1]).schema_arrow.names)

    def _csv_header(self) -> bool:
        if self.json_lines:
            return self._json_start()
        import pandas as pd

        from pudd_core.monitoring._log import MAX_HEADER_BYTES
        from pudd_core.streams.user import csv_header

        raw = os.pread(self._fd_log(), MAX_HEADER_BYTES, 0)
        cut = raw.find(b"\n")
        if cut < 0:
            return False  # the header is still being written
        line = raw[:cut + 1]
        csv_header(line, self.source)
        names = pd.read_csv(io.BytesIO(line), nrows=0).columns
        self.monitor.start([str(c) for c in names])
        self.pos.header = line
        self.pos.offset = len(line)
        self._mark()
        return True

    def _json_start(self) -> bool:
        """A JSON lines log's columns from its first line (rows start at byte 0)."""
        from pudd_core.monitoring._log import MAX_HEADER_BYTES

        raw = os.pread(self._fd_log(), MAX_HEADER_BYTES, 0)
        cut = raw.find(b"\n")
        if cut < 0:
            return False  # the first row is still being written
        try:
            first = json.loads(raw[:cut])
        except (ValueError, UnicodeDecodeError) as exc:
            raise ParameterError("source", f"{self.source}: its first line is not a JSON object "
                                           f"({exc}); a JSON lines log holds one object per "
                                           "line") from None
        if not isinstance(first, dict):
            raise ParameterError("source", f"{self.source}: its first line is a JSON "
                                           f"{type(first).__name__}, not an object; a JSON lines "
                                           "log holds one object (column -> value) per line")
        self.monitor.start([str(c) for c in first])
        self.pos.started = True
        self._mark()
        return True

    # --- the CSV's identity: the same file, the same bytes ----------------------------------
    def _fd_log(self) -> int:
        assert self._log_fd is not None
        return self._log_fd

    def _open(self, path: str) -> None:
        """Follow the file at ``path`` (through an open descriptor: a rename cannot lose it)."""
        if self._log_fd is not None:
            os.close(self._log_fd)
        self._log_fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        st = os.fstat(self._log_fd)
        self.pos.dev, self.pos.ino = st.st_dev, st.st_ino

    def _mark(self) -> None:
        """Remember the bytes read so far: the head (hash and first bytes) and the tail."""
        fd, off = self._fd_log(), self.pos.offset
        if self.pos.hashed < HEAD_BYTES or not self.pos.head_sha:
            self.pos.hashed = min(off, HEAD_BYTES)
            self.pos.head_sha = _sha(fd, 0, self.pos.hashed)
        if len(self.pos.head) < min(off, TAIL_BYTES):
            self.pos.head = os.pread(fd, min(off, TAIL_BYTES), 0)
        self.pos.tail_sha = _sha(fd, max(0, off - TAIL_BYTES), off)

    def _change(self, fd: int) -> str | None:
        """None if the file behind ``fd`` still holds the bytes read; else what happened.

        ``"rewritten"``: the same file still starts with the rows read first, but bytes read
        since changed; ``"truncated"``: the same file was cut and written anew (logrotate's
        copytruncate); ``"undecided"``: cut, and what it holds so far is the start of what
        was read (no whole row yet to tell which); ``"replaced"``: another file.
        """
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != (self.pos.dev, self.pos.ino):
            return "replaced"
        if self._same_bytes(fd):
            return None
        now = os.pread(fd, len(self.pos.head), 0)
        if not self.pos.head.startswith(now):
            return "truncated"
        rows = now[len(self.pos.header):] if now.startswith(self.pos.header) else b""
        if len(now) < len(self.pos.head) and b"\n" not in rows:
            return "undecided"  # no whole row yet to tell a rewrite from a new file
        return "rewritten"

    def _same_bytes(self, fd: int) -> bool:
        """Whether the file behind ``fd`` holds the bytes read (its head and its tail)."""
        off = self.pos.offset
        return (os.fstat(fd).st_size >= off
                and _sha(fd, 0, min(off, HEAD_BYTES)) == self.pos.head_sha
                and _sha(fd, max(0, off - TAIL_BYTES), off) == self.pos.tail_sha)

    def _reopen(self, state: str) -> None:
        """On a restart: find the log the state was written for, or say what became of it."""
        self._log_fd = os.open(self.source, os.O_RDONLY | os.O_CLOEXEC)
        if not self.pos.head_sha:  # nothing read yet (a state saved for the labels' rows)
            self._open(self.source)
            return
        change = self._change(self._fd_log())
        if change == "replaced":  # renamed away while stopped? read it to its end first
            old = _find_inode(os.path.dirname(self.source), self.pos.dev, self.pos.ino)
            if old is not None:
                fd = os.open(old, os.O_RDONLY | os.O_CLOEXEC)
                if self._change(fd) is None:
                    os.close(self._fd_log())
                    self._log_fd = fd
                    self.notices.append(f"{self.source} was rotated while stopped: reading the "
                                        f"old file, now {old}, to its end first")
                    return
                os.close(fd)
            st = os.fstat(self._fd_log())
            self.pos.dev, self.pos.ino = st.st_dev, st.st_ino  # (the path's file, for now)
            if self.pos.offset > len(self.pos.header) and self._same_bytes(self._fd_log()):
                return  # the same log, copied back: its rows read are all there
        if change is not None and change != "undecided":  # (undecided: the reads decide)
            self._rotated(change, f" (--state {state} was written for the log before)",
                          same_fd=True)

    def _rotated(self, change: str, where: str = "", same_fd: bool = False) -> None:
        """The log was rotated, truncated or rewritten: stop, saying so, or follow the new file.

        ``same_fd``: the open descriptor already shows the new file (a truncation, or a
        replacement found on a restart); otherwise the path is opened anew.
        """
        row, off = self.monitor.next_row, self.pos.offset
        what = {"replaced": "replaced by another file (rotated: renamed away or deleted, and "
                            "created anew)",
                "truncated": "truncated and written anew (rotated in place, as logrotate's "
                             "copytruncate does)",
                "rewritten": "rewritten in place: bytes already read have changed"}[change]
        if change == "rewritten":
            raise ParameterError(
                "source", f"{self.source} was {what}{where}, after row {row:,} (byte {off:,}). "
                "A followed log may only grow: rows already read are final. If labels are "
                "being filled into rows written earlier, write them to a second file instead, "
                "keyed by a prediction id, and follow both: monitor LOG --follow --labels "
                "LABELS --id ID (or run the monitor without --follow on the rewritten file)")
        if self.on_rotation == "stop":
            raise ParameterError(
                "source", f"{self.source} was {what}{where}, after row {row:,} (byte {off:,} of "
                "the old file, read to its end where it could be): stopped. To go on with the "
                "new file from its first row, its rows numbered after these, run the same "
                "command with --on-rotation continue (the state is kept); to start over, give "
                "a new --state")
        if not same_fd:
            self._open(self.source)
        else:
            st = os.fstat(self._fd_log())
            self.pos.dev, self.pos.ino = st.st_dev, st.st_ino
        self.pos.offset, self.pos.sniff = 0, True  # its header line, if any, skipped
        self.pos.head, self.pos.head_sha, self.pos.hashed = b"", "", 0
        self.pos.files += 1
        self._mark()
        self._save()  # the switch is kept: a restart goes on in the new file
        self.notices.append(f"{self.source} was {what}{where} after row {row:,}: following the "
                            f"new file from its first row as row {row:,} (file "
                            f"{self.pos.files} of this log)")

    def _parts(self) -> list[tuple[str, str]]:
        names = sorted(n for n in os.listdir(self.source)
                       if n.endswith(".parquet") and not n.startswith((".", "_")))
        return [(n, os.path.join(self.source, n)) for n in names]

    def read(self) -> bool:
        """Read what the log has gained (one step: at most a batch); False if nothing.

        The chunks tested on the way join :attr:`outbox` as JSON lines; the state is saved
        before this returns.
        """
        if self.outbox:
            raise ParameterError("outbox", "write the outbox's lines before reading on")
        fed_labels = False
        if self.labels is not None:  # the labels first: a row read now gets its label now
            fed_labels = self.labels.read()
            self.notices += [f"labels: {n}" for n in self.labels.notices]
            self.labels.notices.clear()
        fed = self._read_csv() if self.pos.kind == "csv" else self._read_part()
        if not (fed or fed_labels):
            return False
        self.outbox = [json.dumps(chunk_json(*c), allow_nan=False) for c in self.monitor.drain()]
        self._save()
        return True

    def _read_csv(self) -> bool:
        import pandas as pd

        from pudd_core.streams.user import CSV_MISSING

        if not (self.pos.header or self.pos.started) and not self._csv_header():
            return False
        fd = self._fd_log()
        if self.pos.sniff and not self._sniff(fd):
            return False
        size = os.fstat(fd).st_size
        if size != self.pos.offset:
            change = self._change(fd)
            if change == "replaced":  # (a copied-back state): the path's file is another
                change = "truncated"
            if change == "undecided":
                return False
            if change is not None:
                self._rotated(change, same_fd=True)
                return True
        data = os.pread(fd, min(max(size - self.pos.offset, 0), MAX_READ), self.pos.offset)
        cut = data.rfind(b"\n")
        if cut < 0:  # nothing new, or a partial last line that waits for its newline
            if len(data) == MAX_READ:
                raise ParameterError("source", f"{self.source}: no line end in "
                                     f"{MAX_READ:,} bytes after byte {self.pos.offset:,}")
            return self._moved_on()
        body = data[:cut + 1]
        columns = self.monitor.read_columns
        row = self.monitor.next_row
        try:
            if self.json_lines:
                frame = pd.read_json(io.BytesIO(body), **JSON_LINES).reindex(
                    columns=columns)  # a key left out of every row read: missing values
            else:
                frame = pd.read_csv(io.BytesIO(self.pos.header + body), usecols=columns,
                                    float_precision="round_trip",
                                    dtype=dict.fromkeys(self.monitor.text_columns, str) or None,
                                    **CSV_MISSING)
        except (UnicodeDecodeError, pd.errors.ParserError, ValueError) as exc:
            raise ParameterError("source", f"{self.source} could not be read near row {row}: "
                                           f"{' '.join(str(exc).split())}") from None
        self.monitor.feed(frame)
        self.pos.offset += len(body)
        self._mark()
        return True

    def _sniff(self, fd: int) -> bool:
        """Skip a new file's header line once it is there; False while it may still come.

        A file rotated in starts with the log's header line or with rows; until it holds
        more bytes than a prefix of the header, which one cannot be told.
        """
        header = self.pos.header
        first = os.pread(fd, len(header), 0)
        if len(first) < len(header) and header.startswith(first):
            return False
        self.pos.sniff = False
        if first == header:
            self.pos.offset = len(header)
            self._mark()
        return True

    def _moved_on(self) -> bool:
        """Whether the path names another file now that the open one is read to its end."""
        try:
            st = os.stat(self.source)
        except FileNotFoundError:
            return False  # renamed away, the new one not created yet
        if (st.st_dev, st.st_ino) == (self.pos.dev, self.pos.ino):
            return False
        left = os.fstat(self._fd_log()).st_size - self.pos.offset
        self._rotated("replaced", f" (a last line of {left:,} bytes without its newline was "
                                  "left in the old file)" if left > 0 else "")
        return True

    def _read_part(self) -> bool:
        import pyarrow.parquet as pq

        seen = set(self.pos.parts)
        last = self.pos.parts[-1] if self.pos.parts else ""
        for name, path in self._parts():
            if name in seen:
                continue
            with open(path, "rb") as fh:  # a part still being written has no footer yet
                fh.seek(0, os.SEEK_END)
                if fh.tell() < 8 or (fh.seek(-4, os.SEEK_END), fh.read(4))[1] != b"PAR1":
                    return False
            if name < last:
                raise ParameterError("source", f"the part {name} appeared after {last} was "
                                     "read, but sorts before it: name the parts so that they "
                                     "sort in the order written (zero-padded numbers or "
                                     "timestamps)")
            names = pq.ParquetFile(path).schema_arrow.names
            fmt = self.monitor.start(names)
            self.monitor.check_columns(names)  # every part has the format's columns
            for n, frame in batches(path, self.monitor.read_columns, BATCH_ROWS,
                                    (fmt.label, fmt.pred)):
                self.monitor.feed(frame, n)
            self.pos.parts.append(name)
            return True
        return False
