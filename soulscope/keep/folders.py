"""Kept folders (a snapshot of a world at a commit): each sealed by a manifest, an entry file
beside it (``NAME.manifest``) listing every file under it with its size, and used only while
every file it lists is there, of its size, and no other is (a file deleted from a snapshot
would otherwise answer without that agent)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path

from soulscope.keep.entries import read_entry, write_entry


def manifest_path(folder: Path) -> Path:
    return folder.with_name(folder.name + ".manifest")


def _listing(folder: Path) -> dict[str, int]:
    """Every file under ``folder`` (relative path -> size); links count as files."""
    out: dict[str, int] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        for name in filenames:
            path = os.path.join(dirpath, name)
            out[os.path.relpath(path, folder)] = os.lstat(path).st_size
    return out


def seal(folder: Path, kind: str, fingerprint: str, at: Path | None = None) -> None:
    """Write the manifest of ``folder``, to be put in place at ``at`` (default: where it is)."""
    listing = _listing(folder)
    data = json.dumps({"files": listing, "bytes": sum(listing.values())}, sort_keys=True)
    write_entry(manifest_path(at or folder), kind, fingerprint, data.encode())


def check(folder: Path, kind: str, fingerprint: str) -> str | None:
    """Why ``folder`` cannot be used (its manifest unreadable, a file missing, changed or
    added), or None when it is whole."""
    kept = read_entry(manifest_path(folder), kind, fingerprint)
    if kept.payload is None:
        return f"its list of files is {kept.problem}" if kept.problem else "it has no list of files"
    try:
        expected = json.loads(kept.payload)["files"]
    except (ValueError, KeyError, TypeError):
        return "its list of files cannot be read"
    try:
        found = _listing(folder)
    except OSError as exc:
        return exc.strerror or str(exc)
    missing = sorted(set(expected) - set(found))
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        return f"{missing[0]}{more} missing"
    changed = sorted(p for p in found if expected.get(p) != found[p])
    if changed:
        return f"{changed[0]} changed"
    return None


def remove(folder: Path) -> None:
    """Remove a kept folder (made writable first: snapshots are read-only) and its manifest."""
    with contextlib.suppress(OSError):
        manifest_path(folder).unlink()
    if not folder.exists():
        return
    for dirpath, _, filenames in os.walk(folder):
        with contextlib.suppress(OSError):
            os.chmod(dirpath, 0o755)
        for name in filenames:
            with contextlib.suppress(OSError):
                os.chmod(os.path.join(dirpath, name), 0o644, follow_symlinks=False)
    shutil.rmtree(folder, ignore_errors=True)


def trim(parent: Path, max_entries: int | None, max_bytes: int | None) -> None:
    """Keep the folders under ``parent`` used last (by their manifests' times), at most
    ``max_entries`` of them and ``max_bytes`` in all; the newest is always kept."""
    try:
        folders = [p for p in parent.iterdir() if p.is_dir() and not p.name.startswith(".")]
    except OSError:
        return
    sized = []
    for folder in folders:
        manifest = manifest_path(folder)
        try:
            used = manifest.stat().st_mtime_ns
            size = int(json.loads(manifest.read_bytes().partition(b"\n")[2])["bytes"])
        except (OSError, ValueError, KeyError, TypeError):
            used, size = 0, 0  # unsealed (a snapshot of older code): first to go
        sized.append((used, size, folder))
    sized.sort(key=lambda f: f[0], reverse=True)
    total = 0
    for n, (_, size, folder) in enumerate(sized):
        total += size
        if n and (
            (max_entries is not None and n >= max_entries)
            or (max_bytes is not None and total > max_bytes)
        ):
            remove(folder)
