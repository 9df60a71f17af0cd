"""Output files of the CLI: never an input, always whole.

Every file the CLI writes goes through `AtomicFile`: the bytes land in a temporary file beside the target and are
renamed over it only when everything was written, so an interrupted or failed run leaves the old file (or no
file) behind, never half of a new one. `refuse_inputs` stops a command from writing over one of its own inputs.
"""

from __future__ import annotations

import os
import re
import stat
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import IO, Any


class OutputRefused(Exception):
    """An output path the command will not write (it is an input, or cannot be created)."""


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """True when both paths name the same file (hard links and symlinks included)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()


def refuse_inputs(output: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]]) -> None:
    """Raise OutputRefused when `output` is one of `inputs`."""
    for source in inputs:
        if same_file(output, source):
            raise OutputRefused(f"refusing to write {output}: it is an input of this command ({source})")


class AtomicFile:
    """A context manager writing `path` atomically; `.replaced` says whether a file was there before.

    On a clean exit the temporary file is flushed, synced and renamed over `path`; on an exception it is
    removed and `path` is left as it was.
    """

    def __init__(self, path: str | os.PathLike[str], mode: str = "w", encoding: str | None = "utf-8") -> None:
        self.path = Path(path)
        self.mode = mode
        self.encoding = encoding if "b" not in mode else None
        self.replaced = self.path.exists()
        if self.replaced and not self.path.is_file():
            raise OutputRefused(f"refusing to write {self.path}: it exists and is not a regular file")
        self._file: IO[Any] | None = None
        self._tmp = ""

    def __enter__(self) -> IO[Any]:
        directory = self.path.parent if str(self.path.parent) else Path(".")
        try:
            fd, self._tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=directory)
        except OSError as exc:
            raise OutputRefused(f"cannot write {self.path}: {exc.strerror or exc}") from None
        try:  # mkstemp makes the file private (0600); give it the permissions a plain open() would
            os.chmod(self._tmp, 0o666 & ~_umask())
        except OSError:
            pass
        # text: what UTF-8 cannot hold (a file name's undecodable bytes, surrogates to Python) as backslash escapes
        self._file = os.fdopen(fd, self.mode, encoding=self.encoding,
                               errors="backslashreplace" if self.encoding else None)
        return self._file

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        assert self._file is not None
        try:
            if kind is None:
                self._file.flush()
                os.fsync(self._file.fileno())
            self._file.close()
            if kind is None:
                os.replace(self._tmp, self.path)
                self._tmp = ""
        finally:
            if self._tmp:
                try:
                    os.unlink(self._tmp)
                except OSError:
                    pass


class StreamFile:
    """A context manager writing in place to what is not a file to replace: a character device (/dev/null, a
    terminal), a named pipe, or a name of an open descriptor (/dev/stdout, /dev/fd/N), which may stand for a
    regular file the shell opened. In text mode the name of the command's own standard output writes through
    `stdout`, so that its lines and the command's stay in order; bytes (mode "wb") go after whatever standard
    output holds so far. `.replaced` is always False."""

    replaced = False

    def __init__(self, path: str | os.PathLike[str], stdout: IO[str] | None = None, mode: str = "w") -> None:
        self.path = Path(path)
        self.binary = "b" in mode
        self._stdout = stdout if stdout is not None and not self.binary and is_stdout(self.path) else None
        self._file: IO[Any] | None = None

    def __enter__(self) -> IO[Any]:
        if self._stdout is not None:
            return self._stdout
        if self.binary and is_stdout(self.path):
            sys.stdout.flush()  # (the command's text so far comes first)
        try:  # appending: a regular file behind /dev/stderr keeps what the command wrote there before
            self._file = open(self.path, "ab") if self.binary else \
                open(self.path, "a", encoding="utf-8", errors="backslashreplace")  # noqa: SIM115
        except OSError as exc:
            raise OutputRefused(f"cannot write {self.path}: {exc.strerror or exc}") from None
        return self._file

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._file is not None:
            self._file.close()
        elif self._stdout is not None:
            self._stdout.flush()


def output_file(path: str | os.PathLike[str], stdout: IO[str] | None = None, mode: str = "w"
                ) -> AtomicFile | StreamFile:
    """An output (text, or bytes with mode "wb"): written in place (`StreamFile`) when `path` is a character
    device, a named pipe or a name of an open descriptor, else atomically (`AtomicFile`, which refuses any other
    path that is there but is no regular file, a block device included)."""
    return StreamFile(path, stdout, mode) if is_stream(path) else AtomicFile(path, mode)


_DESCRIPTORS = re.compile(r"/proc/(self|thread-self|\d+)(/task/\d+)?/fd")


def is_stream(path: str | os.PathLike[str]) -> bool:
    """Whether `path` is a character device or a named pipe, or names an open descriptor (a link, at any step,
    into /proc/self/fd, as /dev/stdout and /dev/fd/N are)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return True
    name = os.path.abspath(path)
    for _ in range(40):  # (a loop of links ends here)
        if _DESCRIPTORS.fullmatch(os.path.realpath(os.path.dirname(name))):
            return True
        if not os.path.islink(name):
            return False
        name = os.path.normpath(os.path.join(os.path.dirname(name), os.readlink(name)))
    return False


def is_stdout(path: str | os.PathLike[str]) -> bool:
    """Whether `path` is the file behind the process's standard output (/dev/stdout, or its file by name)."""
    try:
        return os.path.samestat(os.stat(path), os.fstat(sys.stdout.fileno()))
    except (OSError, ValueError, AttributeError):  # (a captured stdout has no descriptor)
        return False


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_output(path: str | os.PathLike[str], data: str | bytes, inputs: Iterable[str | os.PathLike[str]] = (),
                 stdout: IO[str] | None = None) -> bool:
    """Write `data` to `path` after checking it is not an input, as `output_file` does (a regular file
    atomically, a device, pipe or descriptor name in place); return whether a file was replaced."""
    refuse_inputs(path, inputs)
    sink = output_file(path, stdout, "wb" if isinstance(data, bytes) else "w")
    with sink as f:
        f.write(data)
    return sink.replaced


NPY_MAGIC = b"\x93NUMPY"


def read_npy(path: str) -> Any:
    """The array of a `.npy` file; ValueError with a plain reason when the file is not one ptoisa can read (not
    a .npy at all, a damaged header, Python objects, fewer data bytes than the header promises). The header is
    read and checked against the file's size before any array is allocated, so a header promising terabytes is
    refused instead of tried."""
    import numpy as np

    size = os.path.getsize(path)
    with open(path, "rb") as f:
        if f.read(len(NPY_MAGIC)) != NPY_MAGIC:
            raise ValueError("not a NumPy .npy file (it does not start with the .npy magic bytes)")
        f.seek(0)
        try:
            version = np.lib.format.read_magic(f)
            read = np.lib.format.read_array_header_1_0 if version == (1, 0) else \
                np.lib.format.read_array_header_2_0  # 2.0 and 3.0 differ only in the header's text encoding
            shape, _, dtype = read(f)
        except Exception as exc:  # noqa: BLE001 - NumPy parses the header as Python literal text: any error
            raise ValueError(f"damaged .npy header ({type(exc).__name__}: {exc})".replace("\n", " ")) from None
        if any(type(d) is not int or not 0 <= d <= np.iinfo(np.intp).max for d in shape):
            # (NumPy's own header check lets True, -1 and sizes past its index type through)
            raise ValueError(f"damaged .npy header (shape {shape!r} is not a tuple of sizes NumPy can hold)")
        if dtype.hasobject:
            raise ValueError("it holds Python objects (an object array), not numbers")
        need = int(np.prod(shape, dtype=object)) * dtype.itemsize
        if need > size - f.tell():
            raise ValueError(f"truncated: its header promises {need} bytes of data, the file holds "
                             f"{size - f.tell()}")
    try:
        return np.load(path, allow_pickle=False)
    except (ValueError, EOFError, OverflowError) as exc:  # (a size past NumPy's index type: OverflowError)
        raise ValueError(str(exc) or "truncated or damaged .npy data") from None


def manifest_entry(path: str) -> dict[str, Any] | None:
    """What `ptoisa run --golden` recorded for `path` in manifest.json beside it (dtype, shape), if anything: an
    output, or an input the kernel was given."""
    import json

    manifest = Path(path).parent / "manifest.json"
    try:
        doc = json.loads(manifest.read_text(encoding="utf-8"))
        for entry in [*doc.get("outputs", {}).values(), *doc.get("inputs", {}).values()]:
            if Path(path).name in entry.get("files", ()):
                return entry  # type: ignore[no-any-return]
    except (OSError, ValueError, AttributeError, TypeError):
        return None
    return None
