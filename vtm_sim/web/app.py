"""`vtm-sim serve`: the table in a browser, and the same operations as JSON.

Routes (every one a call of :class:`~vtm_sim.table.service.TableService`):

- ``GET /``: the encounters and a form to start one; ``POST /new``: that form.
- ``GET /tables/NAME``: one encounter's page (:mod:`vtm_sim.web.page`).
- ``GET /api/tables``, ``POST /api/tables``: list, start.
- ``GET /api/tables/NAME``: ``vtm-sim table show --json``; ``DELETE`` removes it.
- ``GET /api/tables/NAME/options|steps|export|log``.
- ``POST /api/tables/NAME/choose|suggest|auto|undo|fork|player|dice``.

A bad request is a 4xx with ``{"error": one line}``: 404 for an unknown encounter,
409 for a stale version (with ``version`` and ``table``, the fresh state), 400 for
the rest (malformed JSON too), 422 for JSON of the wrong shape. Nothing from a request is
opened as a path: files arrive as uploads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import yaml
from fastapi import FastAPI, File, Form, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from vtm_sim.errors import ConfigError, VtmSimError
from vtm_sim.table.errors import FacesNeeded, UnknownTable, VersionConflict
from vtm_sim.table.service import TableService, parse_faces
from vtm_sim.web import page

MAX_UPLOAD = 1_000_000  # bytes: a state or a stat block is a few kilobytes


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewBody(_Body):
    """``POST /api/tables``: exactly one of ``scenario``, ``state`` (its data), or
    ``sheets`` and ``foes`` (names of shipped sheets or stat blocks' data)."""

    name: str
    scenario: str | None = None
    state: dict[str, Any] | None = None
    sheets: list[str | dict[str, Any]] = Field(default_factory=list)
    foes: list[str | dict[str, Any]] = Field(default_factory=list)
    distance: float = 10.0
    damage: list[dict[str, Any]] = Field(default_factory=list)
    pcs: list[str] = Field(default_factory=list)
    seed: int = Field(default=0, ge=0)
    dice: str = "tool"


class ChooseBody(_Body):
    """``option``: an index or a label (short name, prefix); ``faces``: one list per
    roll, a flat list for one roll, or the text ``table choose --faces`` takes."""

    option: int | str
    faces: list[int] | list[list[int]] | str | None = None
    version: int | None = None


class SuggestBody(_Body):
    seconds: float | None = Field(default=2.0, gt=0, le=60)
    rollouts: int | None = Field(default=None, gt=0, le=100_000)
    policy: str = "auto"
    seed: int = Field(default=0, ge=0)


class AutoBody(_Body):
    policy: str | None = None
    version: int | None = None
    max_steps: int = Field(default=1000, gt=0, le=10_000)


class UndoBody(_Body):
    to: int | None = None
    version: int | None = None


class ForkBody(_Body):
    new: str
    at: int | None = None


class PlayerBody(_Body):
    combatant: str
    player: str
    policy: str | None = None


class DiceBody(_Body):
    mode: str


def _one_line(text: str) -> str:
    return " ".join(str(text).split()) or "bad request"


def _error(status: int, message: str, request: Request | None = None,
           **extra: Any) -> Response:
    """``{"error": one line}``; a browser's page request (not ``/api/``) gets the line
    as a small page with a way back."""
    line = _one_line(message)
    if (request is not None and not request.url.path.startswith("/api/")
            and "text/html" in request.headers.get("accept", "")):
        return HTMLResponse(page.error(status, line), status_code=status)
    return JSONResponse({"error": line, **extra}, status_code=status)


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        where = ".".join(str(x) for x in err.get("loc", ()) if x != "body")
        if err.get("type") == "json_invalid":
            return "malformed JSON in the request body"
        parts.append(f"{where or 'body'}: {err.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid request"


def _faces(given: list[int] | list[list[int]] | str | None) -> Any:
    if isinstance(given, str):
        return parse_faces(given) if given.strip() else None
    return given


def create_app(db: str | Path | None = None, *, service: TableService | None = None) -> FastAPI:
    """The web app over the tables of ``db`` (or an open ``service``)."""
    tables = service if service is not None else TableService(db)
    app = FastAPI(title="vtm-sim table", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.tables = tables

    @app.exception_handler(VersionConflict)
    async def _conflict(request: Request, exc: VersionConflict) -> Response:
        name = request.path_params.get("name")
        fresh = None
        if name is not None:
            try:
                fresh = tables.show(name)
            except VtmSimError:
                fresh = None
        return _error(409, str(exc), request, version=exc.current, table=fresh)

    @app.exception_handler(UnknownTable)
    async def _unknown(request: Request, exc: UnknownTable) -> Response:
        return _error(404, str(exc), request)

    @app.exception_handler(FacesNeeded)
    async def _faces_needed(request: Request, exc: FacesNeeded) -> Response:
        return _error(400, str(exc), request, roll=exc.roll)

    @app.exception_handler(ConfigError)
    async def _bad(request: Request, exc: ConfigError) -> Response:
        return _error(400, str(exc), request)

    @app.exception_handler(VtmSimError)
    async def _engine(request: Request, exc: VtmSimError) -> Response:
        return _error(400 if isinstance(exc, ValueError) else 500, str(exc), request)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Response:
        malformed = any(e.get("type") == "json_invalid" for e in exc.errors())
        return _error(400 if malformed else 422, _validation_message(exc), request)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        message = exc.detail if isinstance(exc.detail, str) else "request refused"
        if exc.status_code == 404 and message == "Not Found":
            message = f"no such page: {request.url.path}"
        return _error(exc.status_code, message, request)

    @app.exception_handler(Exception)
    async def _crash(request: Request, exc: Exception) -> Response:
        return _error(500, f"internal error ({type(exc).__name__}): {exc}", request)

    # --- pages --------------------------------------------------------------------------
    @app.get("/", response_class=HTMLResponse)
    def index() -> str:
        from vtm_sim.files.scenarios import list_scenarios

        return page.index(tables.tables(), list_scenarios())

    @app.post("/new")
    async def new_form(name: Annotated[str, Form()],
                       scenario: Annotated[str, Form()] = "",
                       upload: Annotated[UploadFile | None, File()] = None,
                       foe: Annotated[str, Form()] = "", pcs: Annotated[str, Form()] = "",
                       dice: Annotated[str, Form()] = "tool",
                       seed: Annotated[int, Form(ge=0)] = 0) -> RedirectResponse:
        kwargs: dict[str, Any] = {}
        data = await upload.read(MAX_UPLOAD + 1) if upload is not None else b""
        if data:
            if len(data) > MAX_UPLOAD:
                raise ConfigError(f"upload: larger than {MAX_UPLOAD} bytes")
            loaded = _load_upload(data, upload.filename if upload else None)
            if foe.strip():
                kwargs["sheets"] = [loaded]
                kwargs["foes"] = [f.strip() for f in foe.split(",") if f.strip()]
            else:
                kwargs["state"] = loaded
        elif scenario.strip():
            kwargs["scenario"] = scenario.strip()
        else:
            raise ConfigError("give a scenario, or upload a state or a stat block file")
        players = [p.strip() for p in pcs.split(",") if p.strip()]
        tables.new(name.strip(), pcs=players, dice=dice, seed=seed, **kwargs)
        return RedirectResponse(f"/tables/{name.strip()}", status_code=303)

    @app.get("/tables/{name}", response_class=HTMLResponse)
    def table_page(name: str) -> str:
        return page.encounter(tables.show(name), tables.steps(name))

    # --- the JSON API -------------------------------------------------------------------
    @app.get("/api/tables")
    def list_tables() -> list[dict[str, Any]]:
        return tables.tables()

    @app.post("/api/tables", status_code=201)
    def new_table(body: NewBody) -> dict[str, Any]:
        return tables.new(body.name, scenario=body.scenario, state=body.state,
                          sheets=body.sheets, foes=body.foes, distance=body.distance,
                          damage=body.damage, pcs=body.pcs, seed=body.seed, dice=body.dice)

    @app.get("/api/tables/{name}")
    def show(name: str) -> dict[str, Any]:
        return tables.show(name)

    @app.delete("/api/tables/{name}")
    def delete(name: str) -> dict[str, Any]:
        tables.show(name)  # 404 for an unknown one
        tables.delete(name)
        return {"deleted": name}

    @app.get("/api/tables/{name}/options")
    def options(name: str) -> list[dict[str, Any]]:
        return tables.options(name)

    @app.get("/api/tables/{name}/steps")
    def steps(name: str) -> list[dict[str, Any]]:
        return tables.steps(name)

    @app.get("/api/tables/{name}/export")
    def export(name: str) -> dict[str, Any]:
        return tables.export(name)

    @app.get("/api/tables/{name}/log", response_class=PlainTextResponse)
    def log(name: str) -> str:
        return tables.log(name)

    @app.post("/api/tables/{name}/choose")
    def choose(name: str, body: ChooseBody) -> dict[str, Any]:
        option: int | str = body.option
        return tables.choose(name, option, faces=_faces(body.faces), version=body.version)

    @app.post("/api/tables/{name}/suggest")
    def suggest(name: str, body: SuggestBody | None = None) -> dict[str, Any]:
        b = body or SuggestBody()
        return tables.suggest(name, seconds=b.seconds, rollouts=b.rollouts, policy=b.policy,
                              seed=b.seed)

    @app.post("/api/tables/{name}/auto")
    def auto(name: str, body: AutoBody | None = None) -> dict[str, Any]:
        b = body or AutoBody()
        return tables.auto(name, policy=b.policy, version=b.version, max_steps=b.max_steps)

    @app.post("/api/tables/{name}/undo")
    def undo(name: str, body: UndoBody | None = None) -> dict[str, Any]:
        b = body or UndoBody()
        return tables.undo(name, to=b.to, version=b.version)

    @app.post("/api/tables/{name}/fork", status_code=201)
    def fork(name: str, body: ForkBody) -> dict[str, Any]:
        return tables.fork(name, body.new, at=body.at)

    @app.post("/api/tables/{name}/player")
    def player(name: str, body: PlayerBody) -> dict[str, Any]:
        return tables.set_player(name, body.combatant, body.player, body.policy)

    @app.post("/api/tables/{name}/dice")
    def dice(name: str, body: DiceBody) -> dict[str, Any]:
        return tables.set_dice(name, body.mode)

    return app


def _load_upload(data: bytes, filename: str | None) -> dict[str, Any]:
    """An uploaded state or stat block (YAML or JSON) as data; never a path."""
    where = f"upload {filename!r}" if filename else "upload"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{where}: not UTF-8 text") from None
    try:
        loaded = json.loads(text) if text.lstrip().startswith("{") else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise ConfigError(f"{where}: not YAML or JSON ({_one_line(str(exc))[:120]})") from None
    if not isinstance(loaded, dict):
        raise ConfigError(f"{where}: expected a mapping (a state or a stat block)")
    return loaded


def serve(db: str | Path | None, host: str, port: int) -> None:
    """Run the app with uvicorn until interrupted."""
    import uvicorn

    uvicorn.run(create_app(db), host=host, port=port, log_level="warning")
