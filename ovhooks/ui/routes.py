"""The viewer's routes: one function per page or action, each a request in, a response out.

Pages are rendered server-side from ``templates/`` (autoescaped); the JSON routes under
``/api/`` serve the page's script (actions, live updates) and the tests. The data each page
shows is gathered in ``pages``; this module only reads the request and picks the template.
"""

from __future__ import annotations

import os
import time

from ovhooks.ui import pages
from ovhooks.ui.server import Request, Response

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ovhooks.settings.config import Settings
    from ovhooks.ui.guard import Secrets

STATIC_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
HERE = os.path.dirname(os.path.abspath(__file__))


class Viewer:
    """One running viewer: its settings, project, secrets and routes."""

    def __init__(self, settings: Settings, cwd: str, secrets: Secrets, hosts: frozenset[str]):
        import jinja2

        self.settings = settings
        self.cwd = cwd
        self.secrets = secrets
        self.hosts = hosts
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(os.path.join(HERE, "templates")),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
        )
        self.env.filters["when"] = _when
        self.env.filters["known"] = _known
        self.env.filters["evidence"] = pages.evidence_of
        self.env.filters["visible"] = pages.visible
        self.routes: dict[tuple[str, str], Callable[[Request], Response]] = {
            ("GET", "/"): lambda r: Response(303, "", headers=(("Location", "/memories"),)),
            ("GET", "/memories"): self.memories,
            ("GET", "/memory"): self.memory,
            ("GET", "/why"): self.why,
            ("GET", "/log"): self.log,
            ("GET", "/sessions"): self.sessions,
            ("GET", "/session"): self.session,
            ("GET", "/health"): self.health,
            ("GET", "/api/memories"): self.api_memories,
            ("GET", "/api/memory"): self.api_memory,
            ("GET", "/api/why"): self.api_why,
            ("GET", "/api/log"): self.api_log,
            ("GET", "/api/sessions"): self.api_sessions,
            ("GET", "/api/preview"): self.api_preview,
            ("POST", "/api/memory/edit"): self.edit,
            ("POST", "/api/memory/forget"): self.forget,
            ("POST", "/api/memory/undo"): self.undo,
            ("POST", "/api/memories/forget"): self.forget_filter,
        }

    def dispatch(self, request: Request) -> Response:
        method = "GET" if request.method == "HEAD" else request.method
        if method == "GET" and request.path.startswith("/static/"):
            return _static(request.path[len("/static/") :])
        route = self.routes.get((method, request.path))
        if route is None:
            return Response(404, "not found", "text/plain; charset=utf-8")
        try:
            return route(request)
        except pages.UserError as exc:
            if request.path.startswith("/api/"):
                return Response.json({"error": str(exc)}, status=exc.status)
            return self.page("error.html", request, status=exc.status, message=str(exc))
        except Exception as exc:  # a page fails, the viewer does not
            from ovhooks.redact import describe_exception

            message = f"internal error: {describe_exception(exc)}"
            if request.path.startswith("/api/"):
                return Response.json({"error": message}, status=500)
            return self.page("error.html", request, status=500, message=message)

    def page(self, template: str, request: Request, status: int = 200, **data: Any) -> Response:
        from ovhooks.redact import redact_known_secrets

        html = self.env.get_template(template).render(
            csrf=self.secrets.csrf,
            nav=request.path,
            backend=self.settings.backend,
            **data,
        )
        # Our own server key never reaches the page, whatever a memory or an error holds.
        return Response(status, redact_known_secrets(html, self.settings))

    def data(self) -> pages.Data:
        return pages.Data(self.settings, self.cwd)

    # --- pages ----------------------------------------------------------------------------
    def memories(self, request: Request) -> Response:
        q = request.query
        listing = self.data().memories(
            q.get("scope", ""), q.get("category", ""), _int(q.get("page")), q.get("q", "")
        )
        return self.page("memories.html", request, **listing)

    def memory(self, request: Request) -> Response:
        return self.page("memory.html", request, **self.data().memory(_uri(request)))

    def why(self, request: Request) -> Response:
        prompt = request.query.get("prompt", "")
        found = self.data().why(prompt) if prompt.strip() else None
        return self.page("why.html", request, prompt=prompt, found=found)

    def log(self, request: Request) -> Response:
        return self.page("log.html", request, **self.data().log())

    def sessions(self, request: Request) -> Response:
        return self.page("sessions.html", request, sessions=self.data().sessions())

    def session(self, request: Request) -> Response:
        key = request.query.get("key", "")
        return self.page("session.html", request, **self.data().session(key))

    def health(self, request: Request) -> Response:
        return self.page("health.html", request, **self.data().health())

    # --- JSON -----------------------------------------------------------------------------
    def api_memories(self, request: Request) -> Response:
        q = request.query
        listing = self.data().memories(
            q.get("scope", ""), q.get("category", ""), _int(q.get("page")), q.get("q", "")
        )
        return Response.json(pages.listing_json(listing))

    def api_memory(self, request: Request) -> Response:
        return Response.json(pages.memory_json(self.data().memory(_uri(request))))

    def api_why(self, request: Request) -> Response:
        found = self.data().why(request.query.get("prompt", ""))
        return Response.json(pages.why_json(found))

    def api_log(self, request: Request) -> Response:
        since = _float(request.query.get("since"))
        return Response.json(self.data().log_since(since))

    def api_sessions(self, request: Request) -> Response:
        return Response.json({"sessions": self.data().sessions()})

    def api_preview(self, request: Request) -> Response:
        return Response.json({"context": self.data().session_start_preview()})

    def edit(self, request: Request) -> Response:
        body = request.body
        content = body.get("content")
        if not isinstance(content, str) or not content.strip():
            raise pages.UserError("the memory's new text is empty")
        uri = body.get("uri")
        if not isinstance(uri, str):
            raise pages.UserError("name the memory to edit in `uri`")
        if not _is_unicode(content):
            # A lone surrogate ("\ud800" in the JSON) parses, but no store can encode it.
            raise pages.UserError("not saved: the new text holds text that is not valid Unicode")
        return Response.json(self.data().edit(uri, content))  # the URI rule is Data's

    def forget(self, request: Request) -> Response:
        """Forget ``uris``. A URI naming no memory is taken as forgotten already (a second
        tab, a double click): the others are forgotten and it is reported in ``missing``;
        only when none exists is the answer a 404. Refusing the whole list would leave the
        person unable to forget the rest from a stale page."""
        uris = request.body.get("uris")
        if not isinstance(uris, list) or not uris or not all(isinstance(u, str) for u in uris):
            raise pages.UserError("name the memories to forget in `uris`")
        return Response.json(self.data().forget(uris, time.time()))  # the URI rule is Data's

    def undo(self, request: Request) -> Response:
        undo_id = request.body.get("undo")
        if not isinstance(undo_id, str):
            raise pages.UserError("`undo` must name a forget")
        return Response.json(self.data().undo(undo_id, time.time()))

    def forget_filter(self, request: Request) -> Response:
        body = request.body
        expect = body.get("expect")
        if not isinstance(expect, int):
            raise pages.UserError("`expect` (the count you confirmed) is required")
        # Not coerced: ``str(["user"])`` is no scope, and Data refuses what is not one.
        scope = body.get("scope")
        category = body.get("category")
        scope = "" if scope is None else scope
        category = "" if category is None else category
        return Response.json(self.data().forget_filter(scope, category, expect, time.time()))


def _static(name: str) -> Response:
    ext = os.path.splitext(name)[1]
    if "/" in name or name.startswith(".") or ext not in STATIC_TYPES:
        return Response(404, "not found", "text/plain; charset=utf-8")
    try:
        with open(os.path.join(HERE, "static", name), "rb") as fh:
            return Response(200, fh.read(), STATIC_TYPES[ext])
    except (OSError, ValueError):  # ValueError: a NUL in the name
        return Response(404, "not found", "text/plain; charset=utf-8")


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _int(raw: str | None) -> int:
    try:
        return max(1, int(raw or "1"))
    except ValueError:
        return 1


def _float(raw: str | None) -> float:
    try:
        return float(raw or "0")
    except ValueError:
        return 0.0


def _checked_uri(uri: str) -> str:
    """A URI fit to read (a page shows it); what may be changed is ``memory_uri``'s rule."""
    from ovhooks.rules.limits import URI_MAX_CHARS

    if (
        not uri.startswith("viking://")
        or len(uri) > URI_MAX_CHARS
        or any(c in uri for c in "\r\n\0")
    ):
        raise pages.UserError("not a memory URI (viking://…)")
    return uri


def _uri(request: Request) -> str:
    return _checked_uri(request.query.get("uri", ""))


def _when(value: object) -> str:
    """A time as the page shows it; "—" for one the records could not read (``None``)."""
    from ovhooks.settings.readback import moment

    at = moment(value)
    if at is None:
        return "—" if value is None else ""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at))


def _known(value: object) -> object:
    """A value as the page shows it: "—" where the records could not read one (``None``)."""
    return "—" if value is None else value
