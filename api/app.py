"""Flask app factory: builds Services once, installs auth and JSON errors, mounts blueprints."""

from __future__ import annotations

import atexit
import hmac
import logging

from flask import Blueprint, Flask, Response, current_app, g, jsonify, request
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from api import errors, observability, openapi, ui
from api.admin import bp as admin_bp
from api.agents import bp as agents_bp
from api.capture import bp as capture_bp
from api.common import services as current_services
from api.documented import Operation, documented, operations_of
from api.errors import error_response
from api.graph import bp as graph_bp
from api.memory import bp as memory_bp
from api.responses import Health
from api.sessions import bp as sessions_bp
from api.updates import bp as updates_bp
from core.auth import FailedAuthLimiter, Principal
from core.errors import Unauthorized
from core.settings import Settings
from runtime.bootstrap import Services, build

log = logging.getLogger(__name__)

PUBLIC_ENDPOINTS = frozenset(
    {'healthz', 'static', *openapi.PUBLIC_ENDPOINTS, *observability.PUBLIC_ENDPOINTS, *ui.PUBLIC}
)


def create_app(settings: Settings | None = None, services: Services | None = None) -> Flask:
    """The WSGI app; `settings` default to `KG_*` variables, `services` to `build(settings)`."""
    settings = settings or (services.settings if services else Settings.load())
    app = Flask(__name__)
    app.config['MAX_CONTENT_LENGTH'] = settings.max_body_bytes
    app.json.sort_keys = False  # type: ignore[attr-defined]
    errors.register(app)
    if services is None:
        # the stores' own lines (a payload-cache warm-up, a replay) come in the chosen format too
        observability.configure_logging(settings)
        services = build(settings)
        atexit.register(services.close)
    app.extensions['mnemos'] = services
    app.extensions['mnemos.settings'] = settings
    observability.install(app, services)

    guesses = FailedAuthLimiter()

    @app.before_request
    def _authenticate() -> Response | None:
        endpoint = request.endpoint or _endpoint_of_other_method(app)
        if endpoint in PUBLIC_ENDPOINTS or endpoint is None:
            return None
        if request.method == 'OPTIONS':
            return None  # CORS preflights carry no token; Flask answers them without a view
        address = request.remote_addr or '-'
        wait = guesses.retry_after(address)
        if wait:
            return _too_many_guesses(wait)
        try:
            g.principal = authenticate(services, request.headers.get('Authorization'))
        except UnknownToken:
            guesses.failed(address)
            raise
        return None

    mount_routes(app)
    return app


# the API's blueprints, in the order they are mounted (and listed in the OpenAPI document)
BLUEPRINTS: tuple[Blueprint, ...] = (
    openapi.bp,
    memory_bp,
    updates_bp,
    graph_bp,
    sessions_bp,
    admin_bp,
    agents_bp,
    capture_bp,
    ui.bp,
)


def mount_routes(app: Flask) -> None:
    """Mount `/healthz` and every blueprint but observability's (`observability.install`)."""
    app.add_url_rule('/healthz', 'healthz', healthz, methods=['GET'])
    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)


def route_operations() -> list[Operation]:
    """Every route's OpenAPI entry, in the served app's order, without building services (for
    tests and tools that need the list before an app exists)."""
    app = Flask(__name__)
    app.register_blueprint(observability.bp)
    mount_routes(app)
    return operations_of(app)


@documented('Liveness: the process answers', responses={200: Health}, auth=False, tag='service')
def healthz() -> Response:
    """Liveness: the process answers, with its mode, embedder and whether the graph is on."""
    services = current_services()
    settings = current_app.extensions['mnemos.settings']
    return jsonify(
        status='ok',
        mode='embedded' if settings.embedded else 'server',
        embedder=services.recall.embedder_name,
        graph=services.kg is not None,
    )


def _endpoint_of_other_method(app: Flask) -> str | None:
    """The endpoint a 405 request would reach with an allowed method, so that a caller
    without a token learns nothing about a private route (401 before 405); None for a 404."""
    exc = request.routing_exception
    if not isinstance(exc, MethodNotAllowed) or not exc.valid_methods:
        return None
    adapter = app.url_map.bind_to_environ(request.environ)
    try:
        endpoint, _ = adapter.match(method=next(iter(exc.valid_methods)))
    except HTTPException:
        return None
    return str(endpoint)


def authenticate(services: Services, header: str | None) -> Principal:
    """Principal of a bearer token, or Unauthorized."""
    if not header:
        raise Unauthorized('missing bearer token: send Authorization: Bearer <token>')
    scheme, _, token = header.partition(' ')
    token = token.strip()
    if scheme.lower() != 'bearer' or not token:
        raise Unauthorized('malformed Authorization header: expected Bearer <token>')
    admin = services.settings.api_token
    if admin and hmac.compare_digest(token.encode(), admin.encode()):
        return Principal(name='admin', admin=True)
    # agent tokens: team membership is read per request, so a team change applies at once
    agent = services.agents.principal_for(token)
    if agent is not None:
        return agent
    raise UnknownToken('unknown bearer token')


class UnknownToken(Unauthorized):
    """A well-formed bearer token the service does not know: a guess, counted per address."""


def _too_many_guesses(wait: int) -> Response:
    message = f'too many unknown tokens from this address: retry in {wait} s'
    response = error_response('too_many_requests', message, 429, {'retry_after': wait})
    response.headers['Retry-After'] = str(wait)
    return response
