"""`ApiError`, the refusal every check raises, and `public_message`, which keeps server paths out of the
messages a browser sees."""

from __future__ import annotations

import re
from pathlib import Path

# an absolute path of two or more parts ("/home/x/runs/model.zip", "C:\\runs\\x"): shown by its last part only
_ABSOLUTE = re.compile(r"(?<![\w./:-])(?:/|[A-Za-z]:\\)(?:[^\s'\"/\\,;()]+[/\\])+([^\s'\"/\\,;()]*)")


class ApiError(Exception):
    """A refused request: `status` is the HTTP status (4xx), the message says why in plain words."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after = "1"  # for 429


def public_message(message: str, folders: list[Path | None] = ()) -> str:
    """`message` without server paths: a path inside one of `folders` becomes its part inside that folder,
    any other absolute path its last part."""
    for folder in folders:
        if folder is not None:
            message = message.replace(str(folder) + "/", "").replace(str(folder), "<folder>")
    return _ABSOLUTE.sub(lambda m: m.group(1) or "<path>", message)
