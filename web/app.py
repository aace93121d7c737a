"""The Flask app: three pages (templates/: one layout, plain HTML and JavaScript from static/) and the JSON API they use.

Pages: `/` (start), `/replay` (the replay viewer), `/play` (a game against agents). The API (docs/web.md
lists every endpoint with its answers):

    GET  /api/options                                   games, player counts, agent specs, models
    GET  /api/records                                   the records of the server's folder
    POST /api/records?name=N                            upload a record (JSON body) -> its id
    GET  /api/records/<id>?seat=S                       a record's moves, log (for seat S) and scores
    GET  /api/records/<id>/steps/<k>?seat=S             the position after k moves as text
    GET  /api/records/<id>/steps/<k>/picture.png?seat=S the position after k moves as a picture
    POST /api/play                                      start a game -> its view (with its id)
    GET  /api/play/<id>                                 the person's view of the game now
    POST /api/play/<id>/move   {action, version}        play a move -> the new view
    GET  /api/play/<id>/picture.png                     the picture in the person's seat view
    GET  /api/play/<id>/record                          the game so far as a record file

Every refusal is JSON {"error": "..."} with a 4xx status; a request that is refused changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from meeple.envs.record import MAX_RECORD_BYTES
from meeple.web import library as library_module
from meeple.web.errors import ApiError, public_message
from meeple.web.library import RecordLibrary
from meeple.web.limits import API_RATE, COSTLY_RATE, Rate, RateLimiter, retry_after
from meeple.web.play import MAX_PLAY_BYTES, PlaySession, PlayStore
from meeple.web.specs import MAX_MCTS_SIMULATIONS, PLAYABLE_AGENTS, ModelIndex
from meeple.web.views import game_options, parse_seat

STATIC = Path(__file__).resolve().parent / "static"
TEMPLATES = Path(__file__).resolve().parent / "templates"  # the pages: one layout (head, header, nav), a block each
MAX_JSON_BODY = 4096  # a play request is a few dozen bytes
MAX_JSON_DEPTH = 4
LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "::1", "[::1]"]

# the limits a client can see (GET /api/options), as docs/web.md states them
LIMITS = {
    "json_body_bytes": MAX_JSON_BODY, "json_depth": MAX_JSON_DEPTH, "record_bytes": MAX_RECORD_BYTES,
    "requests_per_second": API_RATE.per_second, "requests_burst": API_RATE.burst,
    "costly_per_second": COSTLY_RATE.per_second, "costly_burst": COSTLY_RATE.burst,
    "uploads_kept": library_module.MAX_UPLOADS, "upload_bytes": library_module.MAX_UPLOAD_BYTES,
    "replays_kept": library_module.MAX_OPEN_REPLAYS, "replay_bytes": library_module.MAX_REPLAY_BYTES,
    "records_listed": library_module.MAX_LISTED, "game_bytes": MAX_PLAY_BYTES,
}

# Pages load only their own scripts, styles and images: a record's text (agent labels, meta) is shown with
# textContent, and this policy makes sure nothing else could run even if a page forgot to.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'; "
                               "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}


def json_body() -> Any:
    """The request's small JSON body. Only `application/json` is read: a page of another site cannot send
    that content type without the browser asking first (CORS preflight), which this server never allows.
    Size and nesting are capped before parsing (deep nesting would exhaust the parser's recursion)."""
    if not request.is_json:
        raise ApiError(415, "send the request body as application/json")
    data = request.get_data(cache=False)
    if len(data) > MAX_JSON_BODY:
        raise ApiError(413, f"a request body here is at most {MAX_JSON_BODY} bytes")
    depth = deepest = 0
    for byte in data:
        if byte in b"[{":
            depth += 1
            deepest = max(deepest, depth)
        elif byte in b"]}":
            depth -= 1
    if deepest > MAX_JSON_DEPTH:
        raise ApiError(400, f"the JSON body nests deeper than {MAX_JSON_DEPTH} levels")
    try:
        return json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ApiError(400, f"the body is not valid JSON ({exc})") from None


def png_response(data: bytes) -> Response:
    response = Response(data, mimetype="image/png")
    response.headers["Cache-Control"] = "no-store"  # a play picture changes under the same URL
    return response


def create_app(records_dir: str | Path | None = None, models_dir: str | Path | None = None, max_games: int = 64,
               idle_seconds: float = 1800.0, trusted_hosts: list[str] | None = None, api_rate: Rate = API_RATE,
               costly_rate: Rate = COSTLY_RATE) -> Flask:
    """The app, serving the records of `records_dir` (None: uploads only) and letting `net:` and `search:`
    opponents load nets from `models_dir` (None: the shipped nets only). At most `max_games` live games,
    each forgotten after `idle_seconds` without a request; `trusted_hosts` restricts the Host header
    (against DNS rebinding when serving on loopback); `api_rate` and `costly_rate` limit each client's
    requests (`meeple.web.limits`)."""
    app = Flask(__name__, static_folder=str(STATIC), static_url_path="/static", template_folder=str(TEMPLATES))
    app.config["MAX_CONTENT_LENGTH"] = MAX_RECORD_BYTES + 1024
    if trusted_hosts is not None:
        app.config["TRUSTED_HOSTS"] = list(trusted_hosts)
    models = ModelIndex(Path(models_dir) if models_dir is not None else None)
    library = RecordLibrary(Path(records_dir) if records_dir is not None else None)
    store = PlayStore(models, max_games=max_games, idle_seconds=idle_seconds)
    api_limit, costly_limit = RateLimiter(api_rate), RateLimiter(costly_rate)
    app.extensions["meeple"] = {"library": library, "store": store, "models": models}
    hidden_folders = [models.folder, library.folder, *{path.parent for path in models.shipped.values()}]

    def refusal(message: str, status: int) -> tuple[Response, int]:
        return jsonify(error=public_message(message, hidden_folders)), status

    @app.errorhandler(ApiError)
    def api_error(exc: ApiError) -> tuple[Response, int]:
        response, status = refusal(exc.message, exc.status)
        if status == 429:
            response.headers["Retry-After"] = exc.retry_after
        return response, status

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Any:
        if request.path.startswith("/api/"):
            return refusal(exc.description or exc.name, exc.code or 400)
        return exc

    @app.errorhandler(Exception)
    def server_error(exc: Exception) -> Any:
        app.logger.exception("request failed: %s %s", request.method, request.path)
        if request.path.startswith("/api/"):
            return refusal(f"the server failed on this request ({type(exc).__name__})", 500)
        return "the server failed on this request", 500

    @app.before_request
    def rate_limits() -> None:
        if not request.path.startswith("/api/"):
            return
        client = request.remote_addr or "unknown"
        wait = api_limit.wait_for(client)
        if not wait and request.method == "POST" and request.path in ("/api/play", "/api/records"):
            wait = costly_limit.wait_for(client)
        if wait:
            error = ApiError(429, f"too many requests from your address; try again in {retry_after(wait)} s")
            error.retry_after = retry_after(wait)
            raise error

    @app.after_request
    def security_headers(response: Response) -> Response:
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    # --- pages ----------------------------------------------------------------------------------

    @app.get("/")
    def index_page() -> str:
        return render_template("index.html")

    @app.get("/replay")
    def replay_page() -> str:
        return render_template("replay.html")

    @app.get("/play")
    def play_page() -> str:
        return render_template("play.html")

    # --- options and records --------------------------------------------------------------------

    @app.get("/api/options")
    def options() -> Response:
        return jsonify(games=game_options(), agents=list(PLAYABLE_AGENTS), models=models.specs(),
                       max_mcts_simulations=MAX_MCTS_SIMULATIONS, limits=LIMITS)

    @app.get("/api/records")
    def records() -> Response:
        return jsonify(folder=library.folder is not None, records=library.listing())

    @app.post("/api/records")
    def upload_record() -> tuple[Response, int]:
        if not request.is_json:
            raise ApiError(415, "send the record file's text as application/json")
        name = request.args.get("name", "")
        return jsonify(library.upload(request.get_data(cache=False), name)), 201

    @app.get("/api/records/<record_id>")
    def record_summary(record_id: str) -> Response:
        view = library.open(record_id)
        summary = view.summary(parse_seat(request.args.get("seat"), view.record.num_players))
        library.trim()  # the names and narration it made count towards the replay cache's bytes
        return jsonify(summary)

    @app.get("/api/records/<record_id>/steps/<int:step>")
    def record_step(record_id: str, step: int) -> Response:
        view = library.open(record_id)
        return jsonify(view.step_view(step, parse_seat(request.args.get("seat"), view.record.num_players)))

    @app.get("/api/records/<record_id>/steps/<int:step>/picture.png")
    def record_picture(record_id: str, step: int) -> Response:
        view = library.open(record_id)
        return png_response(view.picture_png(step, parse_seat(request.args.get("seat"), view.record.num_players)))

    # --- play -----------------------------------------------------------------------------------

    @app.post("/api/play")
    def new_game() -> tuple[Response, int]:
        session = store.create(json_body())
        with session.lock:
            return jsonify(session.view()), 201

    def with_game(game_id: str, answer: Callable[[PlaySession], Any]) -> Any:
        """`answer(session)` for the live game `game_id` (404 when there is none), holding the game's lock."""
        session = store.get(game_id)
        with session.lock:
            return answer(session)

    @app.get("/api/play/<game_id>")
    def game_view(game_id: str) -> Response:
        return with_game(game_id, lambda session: jsonify(session.view()))

    @app.post("/api/play/<game_id>/move")
    def move(game_id: str) -> Response:
        session = store.get(game_id)
        body = json_body()
        if not isinstance(body, dict) or set(body) != {"action", "version"}:
            raise ApiError(400, "send {\"action\": <id>, \"version\": <the version you were shown>}")
        with session.lock:
            session.move(body["action"], body["version"])
            return jsonify(session.view())

    @app.get("/api/play/<game_id>/picture.png")
    def game_picture(game_id: str) -> Response:
        return with_game(game_id, lambda session: png_response(session.picture_png()))

    @app.get("/api/play/<game_id>/record")
    def game_record(game_id: str) -> Response:
        record, created = with_game(game_id, lambda session: (session.record(), session.created))
        name = f"{record['game']}-{record['config']['num_players']}p-{created:%Y%m%d-%H%M%S}.json"
        response = Response(json.dumps(record, separators=(",", ":")) + "\n", mimetype="application/json")
        response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
        return response

    return app
