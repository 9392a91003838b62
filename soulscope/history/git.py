"""The one place that talks to git (through gitpython): commits touching a path, blobs, pickaxe.

Every question is answered by one git command or by the repository's persistent
``git cat-file --batch`` reader, never by one subprocess per commit.
"""

from __future__ import annotations

import contextlib
import io
import re
import tarfile
import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from soulscope.errors import SoulscopeError

if TYPE_CHECKING:
    import git

# A commit record in ``git log -z`` output: fields separated by \x1f, the record opened by \x1e.
_FIELDS = ("%H", "%P", "%at", "%aI", "%an", "%s")
_LOG_FORMAT = "--format=%x1e" + "%x1f".join(_FIELDS)
_NULL_SHA = "0" * 40
_BLOB_CACHE_BYTES = 64 * 1024 * 1024
_LOOKS_LIKE_DATE = re.compile(
    r"\d{4}-\d{2}-\d{2}([ T]\d{1,2}:\d{2}(:\d{2})?)?([+-]\d{2}:?\d{2}|Z)?"
)


class HistoryError(SoulscopeError):
    """A history question that cannot be answered, said in one sentence a user can act on."""


@dataclass(frozen=True, slots=True)
class Commit:
    """One commit's identity and metadata."""

    sha: str
    parents: tuple[str, ...]
    timestamp: int  # author time, seconds since the epoch
    date: str  # author date, ISO 8601 with the author's offset
    author: str
    message: str  # the subject line

    @property
    def short(self) -> str:
        return self.sha[:7]


@dataclass(frozen=True, slots=True)
class FileChange:
    """What one commit did to one file: status letter (A, M, D, R, C, T), paths and blob ids."""

    commit: Commit
    status: str
    path: str  # path after the commit, relative to the repository root (posix)
    old_path: str  # path before (differs from ``path`` for renames and copies)
    old_blob: str | None  # None where the file did not exist before
    new_blob: str | None  # None where the commit deleted it


def find_repo(path: str | Path) -> git.Repo | None:
    """The git repository holding ``path`` (searching parent folders), or None."""
    import git

    p = Path(path).expanduser()
    start = p if p.is_dir() else p.parent
    try:
        repo = git.Repo(start, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None
    if repo.bare or repo.working_tree_dir is None:
        repo.close()
        return None
    return repo


def _text(value: str | bytes) -> str:
    return value.decode("ascii") if isinstance(value, bytes) else value


def _decode(data: bytes) -> str:
    return data.decode("utf-8", "replace")


class Git:
    """A repository's history, read through one adapter. Thread-safe for the blob reader."""

    def __init__(self, repo: git.Repo) -> None:
        self.repo = repo
        assert repo.working_tree_dir is not None  # (find_repo never gives a bare repository)
        self.root = Path(repo.working_tree_dir).resolve()
        self._lock = threading.Lock()
        self._blobs: OrderedDict[str, bytes] = OrderedDict()
        self._blob_bytes = 0
        self._shallow: bool | None = None

    @classmethod
    def open(cls, path: str | Path) -> Git:
        """The repository holding ``path``; raises HistoryError when there is none."""
        repo = find_repo(path)
        if repo is None:
            raise HistoryError(f"{path} is not in a git repository, so it has no history")
        return cls(repo)

    def close(self) -> None:
        """Stop the repository's persistent git processes."""
        self.repo.close()

    # -- running git --------------------------------------------------------------------------

    def _run(self, *args: str) -> bytes:
        import git

        try:
            return self.repo.git.execute(
                ["git", *args], stdout_as_string=False, strip_newline_in_stdout=False
            )
        except git.GitCommandError as exc:
            message = _decode(exc.stderr if isinstance(exc.stderr, bytes) else b"")
            message = message or str(exc.stderr or "")
            first = next((ln for ln in message.splitlines() if ln.strip()), "git failed")
            raise HistoryError(first.strip().removeprefix("stderr: ").strip("'")) from exc

    @property
    def shallow(self) -> bool:
        """Whether this is a shallow clone (its history stops early)."""
        if self._shallow is None:
            # What ``git rev-parse --is-shallow-repository`` checks, without a process.
            self._shallow = (Path(self.repo.common_dir) / "shallow").exists()
        return self._shallow

    def require_full_history(self) -> None:
        if self.shallow:
            raise HistoryError(
                f"{self.root} is a shallow clone, so its history is incomplete: "
                "run 'git fetch --unshallow' there first"
            )

    def relpath(self, path: str | Path) -> str:
        """``path`` relative to the repository root, posix style; raises when it lies outside."""
        p = Path(path).resolve()
        try:
            return p.relative_to(self.root).as_posix()
        except ValueError:
            raise HistoryError(f"{p} is outside the repository at {self.root}") from None

    # -- commits ------------------------------------------------------------------------------

    def resolve(self, rev: str) -> Commit:
        """A revision (sha, tag, branch, ``HEAD~5``, or a date such as 2026-03-15) as a commit."""
        rev = rev.strip()
        if not rev or rev.startswith("-") or "\n" in rev:
            raise HistoryError(f"'{rev}' is not a revision")
        found = self._object(f"{rev}^{{commit}}")
        if found is not None and found[1] == "commit":
            return _parse_commit(found[0], found[2])
        if _LOOKS_LIKE_DATE.fullmatch(rev):
            # A bare date means the end of that day in UTC (git alone would read it as that day
            # at the current time of day); a time without a zone is UTC too.
            when = rev
            if len(rev) == 10:
                when = f"{rev} 23:59:59 +0000"
            elif not re.search(r"([+-]\d{2}:?\d{2}|Z)$", rev):
                when = f"{rev} +0000"
            sha = _decode(self._run("rev-list", "-1", f"--before={when}", "HEAD")).strip()
            if not sha:
                shown = f"the end of {rev} (UTC)" if len(rev) == 10 else f"{rev} (UTC)"
                raise HistoryError(f"there is no commit on or before {shown}")
            return self.resolve(sha)
        hint = " (this is a shallow clone, older commits are missing)" if self.shallow else ""
        raise HistoryError(f"unknown revision '{rev}'{hint}")

    def _object(self, ref: str) -> tuple[str, str, bytes] | None:
        """(id, type, bytes) of any object git can name (``HEAD~2:path`` too), or None."""
        with self._lock:
            try:
                raw_sha, raw_kind, _, data = self.repo.git.get_object_data(ref)
            except ValueError:  # cat-file answered "missing" or "ambiguous"
                return None
        sha, kind = _text(raw_sha), _text(raw_kind)
        if kind == "blob":
            self._remember(sha, data)
        return sha, kind, data

    def head(self) -> str | None:
        """The commit HEAD points at now; None in a repository without commits.

        Read from the ref files (loose or packed), without starting a git process.
        """
        from git.refs.symbolic import SymbolicReference

        try:
            return SymbolicReference.dereference_recursive(self.repo, "HEAD")
        except ValueError:  # HEAD names a branch with no commit yet
            return None

    def read(self, rev: str, path: str) -> tuple[str, bytes] | None:
        """The blob id and bytes of ``path`` at ``rev``; None where the file is absent there.

        One round trip to the persistent cat-file process; raises HistoryError for an
        unknown revision.
        """
        if ":" not in rev and not rev.startswith("-") and "\n" not in rev:
            found = self._object(f"{rev}:{path}")
            if found is not None and found[1] == "blob":
                return found[0], found[2]
        sha = self.resolve(rev).sha  # an unknown revision raises here; a date resolves here
        if sha != rev:
            found = self._object(f"{sha}:{path}")
            if found is not None and found[1] == "blob":
                return found[0], found[2]
        return None

    def file_history(self, path: str) -> list[FileChange]:
        """Commits that touched ``path``, newest first, following renames (``git log --follow``).

        Merges count with what they changed against their first parent.
        """
        out = self._run(
            "log",
            "--follow",
            "--diff-merges=first-parent",
            "-z",
            "--raw",
            "--no-abbrev",
            "-M",
            _LOG_FORMAT,
            "HEAD",
            "--",
            path,
        )
        return [c for commit, changes in _parse_log(out) for c in changes[:1]]

    def pickaxe(self, search: list[str], paths: list[str], rev: str = "HEAD") -> list[FileChange]:
        """``git log SEARCH --reverse REV -- PATHS`` (``SEARCH`` is ``-STERM`` or ``-GREGEX -i``):
        oldest first, each matching file of each commit up to ``rev``."""
        out = self._run(
            "log", *search, "--reverse", "-z", "--raw", "--no-abbrev", _LOG_FORMAT, rev,
            "--", *paths,
        )  # fmt: skip
        return [c for commit, changes in _parse_log(out) for c in changes]

    def renames(self, paths: list[str], rev: str = "HEAD") -> list[FileChange]:
        """The renames of files under ``paths`` in the history up to ``rev``, oldest first."""
        out = self._run(
            "log", "-M", "--diff-filter=R", "--reverse", "-z", "--raw", "--no-abbrev",
            _LOG_FORMAT, rev, "--", *paths,
        )  # fmt: skip
        return [c for _, changes in _parse_log(out) for c in changes if c.status == "R"]

    def ancestors(self, sha: str) -> set[str]:
        """Every commit reachable from ``sha``, itself included."""
        return set(_decode(self._run("rev-list", sha)).split())

    # -- contents -----------------------------------------------------------------------------

    def blob(self, sha: str) -> bytes:
        """A blob's bytes, read through the persistent cat-file process and cached by id."""
        with self._lock:
            data = self._blobs.get(sha)
            if data is not None:
                self._blobs.move_to_end(sha)
                return data
            data = self.repo.odb.stream(bytes.fromhex(sha)).read()
        self._remember(sha, data)
        return data

    def blobs(self, shas: list[str]) -> Iterator[tuple[str, bytes]]:
        """Many blobs in one pass: every id is sent to one ``git cat-file --batch`` up front and
        the answers are read as git produces them, so git and Python work at the same time.
        """
        if not shas:
            return
        import subprocess

        proc = self.repo.git.cat_file("--batch", as_process=True, istream=subprocess.PIPE)
        stdin, stdout = proc.proc.stdin, proc.proc.stdout

        def feed() -> None:
            # A thread, so that a long list cannot fill the pipe while nobody reads the answers.
            with contextlib.suppress(OSError):
                stdin.write("".join(f"{s}\n" for s in shas).encode())
                stdin.close()

        writer = threading.Thread(target=feed, daemon=True)
        writer.start()
        try:
            for _ in shas:
                sha, kind, size = stdout.readline().split()
                data = stdout.read(int(size))
                stdout.read(1)  # the newline after each object
                yield sha.decode("ascii"), data
        finally:
            writer.join()
            proc.proc.stdout.close()
            proc.proc.wait()

    def _remember(self, sha: str, data: bytes) -> None:
        with self._lock:
            if sha in self._blobs:
                return
            self._blobs[sha] = data
            self._blob_bytes += len(data)
            while self._blob_bytes > _BLOB_CACHE_BYTES and len(self._blobs) > 1:
                _, old = self._blobs.popitem(last=False)
                self._blob_bytes -= len(old)

    def blob_id(self, sha: str, path: str) -> str | None:
        """The id of the blob at ``path`` in commit ``sha``, or None where there is no such file."""
        found = self.read(sha, path)
        return found[0] if found else None

    def diff_revs(self, rev_a: str, rev_b: str, path: str) -> str:
        """``git diff REV_A REV_B -- PATH``: the unified diff of one file between two revisions."""
        return _decode_diff(
            self._run("diff", "--no-color", "--no-ext-diff", "--text", rev_a, rev_b, "--", path)
        )

    def diff(self, old_blob: str | None, new_blob: str | None, old_path: str, new_path: str) -> str:
        """The unified diff between two blobs (either may be absent), named after the files."""
        if old_blob == new_blob:
            return ""
        if old_blob is None or new_blob is None:
            return _one_sided_diff(
                _decode_diff(self.blob(new_blob or old_blob or "")),
                old_path,
                new_path,
                new_blob is None,
            )
        out = _decode_diff(
            self._run("diff", "--no-color", "--no-ext-diff", "--text", old_blob, new_blob)
        )
        # git names blob diffs after their ids; name them after the files instead.
        lines = out.split("\n")
        for i, ln in enumerate(lines[:4]):
            if ln.startswith("diff --git"):
                lines[i] = f"diff --git a/{old_path} b/{new_path}"
            elif ln.startswith("--- "):
                lines[i] = f"--- a/{old_path}"
            elif ln.startswith("+++ "):
                lines[i] = f"+++ b/{new_path}"
        return "\n".join(lines)

    def extract(self, sha: str, path: str, dest: Path) -> bool:
        """Write the tree at ``path`` in commit ``sha`` under ``dest`` (same relative layout).

        Returns False when ``path`` does not exist in that commit.
        """
        if path not in ("", ".") and self._object(f"{sha}:{path}") is None:
            return False
        data = self._run("archive", "--format=tar", sha, "--", path or ".")
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            tar.extractall(dest, filter="data")
        return True


def _parse_commit(sha: str, raw: bytes) -> Commit:
    """A raw commit object (as ``cat-file`` gives it) as a Commit, dated like git's ``%aI``."""
    head, _, message = raw.partition(b"\n\n")
    parents: list[str] = []
    author, timestamp, offset = "", 0, "+0000"
    for line in head.split(b"\n"):
        if line.startswith(b"parent "):
            parents.append(line[7:].decode())
        elif line.startswith(b"author "):
            who, _, when = line[7:].rpartition(b"> ")
            author = _decode(who.partition(b" <")[0])
            ts, _, offset = _decode(when).partition(" ")
            timestamp = int(ts)
    sign = -1 if offset.startswith("-") else 1
    zone = timezone(sign * timedelta(hours=int(offset[1:3]), minutes=int(offset[3:5])))
    # Like %s: the first paragraph of the message, its lines joined by spaces.
    subject = " ".join(_decode(message).strip().split("\n\n")[0].split())
    return Commit(
        sha=sha,
        parents=tuple(parents),
        timestamp=timestamp,
        date=datetime.fromtimestamp(timestamp, zone).isoformat(),
        author=author,
        message=subject,
    )


def _decode_diff(data: bytes) -> str:
    # Diff text keeps undecodable bytes the way the parser does, so it can be shown as \ufffd.
    from soulscope.soul.model import ENCODING_ERRORS

    return data.decode("utf-8", ENCODING_ERRORS)


def _one_sided_diff(text: str, old_path: str, new_path: str, deleted: bool) -> str:
    """The diff of a file created (or deleted) whole, as git prints it."""
    lines = text.splitlines()
    sign = "-" if deleted else "+"
    span = f"-1,{len(lines)} +0,0" if deleted else f"-0,0 +1,{len(lines)}"
    head = [
        f"diff --git a/{old_path} b/{new_path}",
        "deleted file mode 100644" if deleted else "new file mode 100644",
        f"--- a/{old_path}" if deleted else "--- /dev/null",
        "+++ /dev/null" if deleted else f"+++ b/{new_path}",
    ]
    if lines:
        head.append(f"@@ {span} @@")
    body = [sign + ln for ln in lines]
    if text and not text.endswith("\n"):
        body.append("\\ No newline at end of file")
    return "\n".join(head + body) + "\n"


def _parse_log(out: bytes) -> list[tuple[Commit, list[FileChange]]]:
    """Parse ``git log -z --raw`` output made with ``_LOG_FORMAT`` into commits and file changes."""
    records: list[tuple[Commit, list[FileChange]]] = []
    for chunk in out.split(b"\x1e")[1:]:
        head, _, raw = chunk.partition(b"\0")
        sha, parents, at, date, author, subject = _decode(head).split("\x1f", 5)
        commit = Commit(
            sha=sha,
            parents=tuple(parents.split()),
            timestamp=int(at),
            date=date,
            author=author,
            message=subject.strip(),
        )
        changes: list[FileChange] = []
        tokens = raw.split(b"\0")
        i = 0
        while i < len(tokens):
            meta = tokens[i].strip()
            if not meta.startswith(b":"):
                i += 1
                continue
            _, _, old_sha, new_sha, status = _decode(meta[1:]).split(" ", 4)
            letter = status[:1]
            if letter in "RC":
                old_path, new_path = _decode(tokens[i + 1]), _decode(tokens[i + 2])
                i += 3
            else:
                old_path = new_path = _decode(tokens[i + 1])
                i += 2
            changes.append(
                FileChange(
                    commit=commit,
                    status=letter,
                    path=new_path,
                    old_path=old_path,
                    old_blob=None if old_sha == _NULL_SHA else old_sha,
                    new_blob=None if new_sha == _NULL_SHA else new_sha,
                )
            )
        records.append((commit, changes))
    return records
