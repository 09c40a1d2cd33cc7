"""The certificate manifest (``encodings/certificates.md``): its fields, names, reading and writing.

A certificate is a JSON manifest plus the files it names, all in one folder.  ``Certificate`` is
one made in memory (a worker makes it, the process that owns the folder writes it);
``write_certificate`` writes its files under temporary names and renames them, the manifest last,
so a manifest on disk always names complete files.  ``read_manifest`` reads one back and checks
the fields every claim has; what a claim's fields mean is checked by ``check``.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import SudokuCpError, excerpt

__all__ = [
    "CLAIMS",
    "FORMAT",
    "VERSION",
    "Certificate",
    "CertificateError",
    "ManifestError",
    "read_manifest",
    "manifest_stem",
    "write_certificate",
]

FORMAT = "sudoku_cp certificate"
#: The version of the specification this code writes and reads.
VERSION = 1
CLAIMS = ("unsat", "unique", "multiple", "closure", "formula")
#: Manifests larger than this are not certificates (a 25x25 closure manifest is a few hundred kB).
MAX_MANIFEST_BYTES = 64 * 2**20


class CertificateError(SudokuCpError):
    """A claim that could not be certified: the prover found it false, or its proof did not check."""


class ManifestError(SudokuCpError):
    """A manifest that cannot be read: missing, not JSON, not a certificate, another version."""


@dataclass(frozen=True, slots=True)
class Certificate:
    """A certificate made in memory: its file-name stem, the manifest's fields and the files it
    names (name -> bytes)."""

    stem: str
    manifest: dict[str, Any]
    files: dict[str, bytes] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The manifest's file name."""
        return f"{self.stem}.json"


def manifest_stem(claim: str, key: str) -> str:
    """The file-name stem of a claim about the object described by ``key`` ('<claim>-<16 hex>')."""
    return f"{claim}-{hashlib.sha256(key.encode('utf-8')).hexdigest()[:16]}"


def write_certificate(directory: str | os.PathLike[str], certificate: Certificate) -> Path:
    """Write a certificate's files, then its manifest, into ``directory``; return the manifest's path."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    for file_name, data in certificate.files.items():
        _write_atomic(folder / file_name, data)
    text = json.dumps(certificate.manifest, indent=1) + "\n"
    path = folder / certificate.name
    _write_atomic(path, text.encode("utf-8"))
    return path


def _write_atomic(path: Path, data: bytes) -> None:
    """Write under a temporary name, then rename: an interrupted write never leaves a partial file."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def read_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a manifest and check its format, version, claim and box; raise ManifestError if it is not one."""
    where = str(path)
    try:
        size = os.path.getsize(path)
        if size > MAX_MANIFEST_BYTES:
            raise ManifestError(f"{where}: {size} bytes, too large for a certificate manifest")
        with open(path, "rb") as source:
            raw = source.read(MAX_MANIFEST_BYTES + 1)
    except FileNotFoundError:
        raise ManifestError(f"{where}: no such file") from None
    except IsADirectoryError:
        raise ManifestError(f"{where}: a directory, not a manifest") from None
    except OSError as error:
        raise ManifestError(f"{where}: cannot be read ({error.strerror or error})") from None
    try:
        obj = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ManifestError(f"{where}: not UTF-8 text (byte {error.start})") from None
    except json.JSONDecodeError as error:
        at = f"line {error.lineno}, column {error.colno}"
        raise ManifestError(f"{where}: not JSON ({at}: {error.msg})") from None
    except (ValueError, RecursionError):
        raise ManifestError(f"{where}: not JSON (a number too long or lists nested too deep)") from None
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        raise ManifestError(f'{where}: not a certificate manifest (no "format": "{FORMAT}")')
    version = obj.get("version")
    if version != VERSION:
        raise ManifestError(
            f"{where}: certificate version {excerpt(version)}, this sudoku_cp reads version {VERSION}"
        )
    if obj.get("claim") not in CLAIMS:
        known = ", ".join(CLAIMS)
        raise ManifestError(f"{where}: unknown claim {excerpt(obj.get('claim'))} (one of {known})")
    if obj["claim"] != "formula" and not isinstance(obj.get("box"), str):  # a formula has no grid
        raise ManifestError(f'{where}: "box" must be a string "PxQ", got {excerpt(obj.get("box"))}')
    return obj
