"""The browser app: watch recorded games step by step, and play against any agent (`meeple serve`).

    meeple serve --records runs/records      # then open http://127.0.0.1:8000/
    python -m meeple.web --port 8080         # the same, without the console script

Pages are plain HTML and JavaScript served by a small Flask app (`meeple.web.app.create_app`); there is no
build step and nothing is loaded from another site. docs/web.md describes the pages, the JSON API and the
security decisions. Needs the `web` extra (`pip install 'meeple[web]'`).
"""

from __future__ import annotations

import argparse
import ipaddress
import sys
from pathlib import Path

DEFAULT_MODELS = "runs"  # where `meeple train` writes runs/<name>/model.zip


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def parser(prog: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog, description="Serve the browser app: a replay viewer for recorded games and games against agents.",
        epilog="Listens on 127.0.0.1 (this machine only) unless --host says otherwise; docs/web.md has the details.")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port to listen on (default: 8000; 0 picks a free one)")
    p.add_argument("--records", metavar="DIR", help="folder of recorded games to list (evaluate --record DIR writes them)")
    p.add_argument("--models", metavar="DIR",
                   help="the folder net:<model> and search:<model> opponents may load nets from "
                        f"(default: {DEFAULT_MODELS} if it exists)")
    p.add_argument("--max-games", type=int, default=64, help="live games at most (default: 64)")
    p.add_argument("--idle-minutes", type=float, default=30.0, help="forget a game idle this long (default: 30)")
    return p


def run_cli(argv: list[str] | None = None, prog: str = "meeple serve") -> int:
    """`meeple serve [options]`: check the options, then serve until Ctrl-C; returns the exit code."""
    args = parser(prog).parse_args(argv)
    problems = []
    if not 0 <= args.port <= 65535:
        problems.append(f"--port must be 0..65535, got {args.port}")
    if args.records is not None and not Path(args.records).is_dir():
        problems.append(f"--records {args.records!r}: not a folder")
    if args.models is not None and not Path(args.models).is_dir():
        problems.append(f"--models {args.models!r}: not a folder")
    if args.max_games < 1:
        problems.append(f"--max-games must be at least 1, got {args.max_games}")
    if not args.idle_minutes > 0:
        problems.append(f"--idle-minutes must be positive, got {args.idle_minutes}")
    if problems:
        print(f"{prog}: error: " + "; ".join(problems), file=sys.stderr)
        return 2
    from werkzeug.serving import make_server

    from meeple.web.app import LOOPBACK_HOSTS, create_app

    models = Path(args.models) if args.models is not None else (Path(DEFAULT_MODELS) if Path(DEFAULT_MODELS).is_dir() else None)
    app = create_app(args.records, models, max_games=args.max_games, idle_seconds=args.idle_minutes * 60,
                     trusted_hosts=LOOPBACK_HOSTS if is_loopback(args.host) else None)
    server = make_server(args.host, args.port, app, threaded=True)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"meeple serve: http://{shown}:{server.server_port}/  (records: {args.records or 'none, uploads only'}; "
          f"models: {models or 'none'}); Ctrl-C stops", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


def main() -> int:
    return run_cli(sys.argv[1:], prog="python -m meeple.web")


__all__ = ["main", "run_cli"]
