"""``vtm-sim serve`` (the table in a browser) and ``vtm-sim mcp`` (the table for an AI
assistant): :mod:`vtm_sim.web`, which needs the ``web`` extra.

Both run until interrupted; neither holds a rule (every operation is a
``TableService`` call). The web app and the MCP SDK are imported when the command runs.
"""

from __future__ import annotations

import click

from vtm_sim.cli.base import main, user_errors
from vtm_sim.cli.tables import db_option


@main.command("serve")
@db_option
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="The port to listen on.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on; anything but this machine's own "
              "(127.0.0.1) lets others on the network play the table.")
def serve_cmd(db: str | None, port: int, host: str) -> None:
    """The table in a browser: one page per encounter, and the JSON API (docs/table.md)."""
    with user_errors():
        from vtm_sim.web import require

        require("fastapi", "uvicorn", "multipart")
    if host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(f"warning: serving on {host}: anyone who reaches this address and port "
                   "can read and change every table (there is no login)", err=True)
    click.echo(f"vtm-sim table: http://{host}:{port}/ (Ctrl-C stops it)", err=True)
    with user_errors():
        from vtm_sim.web.app import serve

        serve(db, host, port)


@main.command("mcp")
@db_option
def mcp_cmd(db: str | None) -> None:
    """The table for an AI assistant: an MCP server over stdio (docs/table.md)."""
    with user_errors():
        from vtm_sim.web import require

        require("mcp")
        from vtm_sim.web.assistant import run

        run(db)
