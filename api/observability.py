"""Request ids, the access log, JSON log lines, Prometheus `/metrics`, `/readyz` and CORS.

`install(app, services)` wires all of it into the app factory:

- every request gets an id: the caller's `X-Request-Id` when it is a sane token
  (`[A-Za-z0-9._:-]{1,128}`), else a new uuid4 hex; the response always carries it back;
- one access log line per request on the `mnemos.access` logger: method, route template,
  status, milliseconds, request id and principal (`admin`, `agent:<id>` or `-`). Never the
  token, the body, the query string or memory text;
- `/metrics` (admin token): request latency per route, search stage latencies from the
  receipts, job queue depth and failures, store sizes; `/readyz` (no token): store probes;
- CORS for `KG_CORS_ORIGINS` (off when unset).
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    g,
    has_request_context,
    jsonify,
    request,
)
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from api.documented import Raw, documented
from api.responses import Check, Ready
from api.version import version
from core.errors import Forbidden, NotFound
from recall.schemas import Receipt

if TYPE_CHECKING:
    from core.settings import Settings
    from runtime.bootstrap import Services

access_log = logging.getLogger('mnemos.access')
log = logging.getLogger(__name__)

REQUEST_ID_HEADER = 'X-Request-Id'
_REQUEST_ID = re.compile(r'^[A-Za-z0-9._:-]{1,128}$')
PUBLIC_ENDPOINTS = frozenset({'observability.readyz'})

#: seconds; searches and writes on the embedded stores sit between 1 ms and a few seconds
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


def request_id() -> str | None:
    """This request's id (None outside a request)."""
    if not has_request_context():
        return None
    return g.get('request_id')


# ---- logging ----------------------------------------------------------------------------------

_ACCESS_FIELDS = ('method', 'route', 'status', 'ms', 'principal')


class RequestIdFilter(logging.Filter):
    """Puts the current request id on every record (`-` outside a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, 'request_id'):
            record.request_id = request_id() or '-'
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, msg, request_id and access fields."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            'ts': datetime.fromtimestamp(record.created, UTC).isoformat(timespec='milliseconds'),
            'level': record.levelname,
            'logger': record.name,
            'msg': record.getMessage(),
            'request_id': getattr(record, 'request_id', None) or request_id(),
        }
        for name in _ACCESS_FIELDS:
            if hasattr(record, name):
                entry[name] = getattr(record, name)
        if record.exc_info:
            entry['exc'] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


TEXT_FORMAT = '%(asctime)s %(levelname)s %(name)s [%(request_id)s]: %(message)s'


def configure_logging(settings: Settings) -> None:
    """Apply `KG_LOG_FORMAT` and `KG_LOG_LEVEL` to the process's plain stream handlers.

    A process with no handler gets one on stderr. Handlers of other kinds (pytest's capture,
    files set up by an embedding program) keep their own formatter and only gain the filter.
    """
    root = logging.getLogger()
    if not root.handlers:
        root.addHandler(logging.StreamHandler())
    formatter: logging.Formatter = (
        JsonFormatter() if settings.log_format == 'json' else logging.Formatter(TEXT_FORMAT)
    )
    for handler in root.handlers:
        if not any(isinstance(f, RequestIdFilter) for f in handler.filters):
            handler.addFilter(RequestIdFilter())
        if type(handler) is logging.StreamHandler:
            handler.setFormatter(formatter)
    root.setLevel(settings.log_level)
    access_log.setLevel(logging.INFO)


# ---- metrics ----------------------------------------------------------------------------------


class Metrics:
    """The app's Prometheus collectors, in a registry of its own (one per app)."""

    def __init__(self, services: Services) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Histogram(
            'mnemos_http_request_duration_seconds',
            'Time to answer a request, by route template, method and status',
            ('method', 'route', 'status'),
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.search_stages = Histogram(
            'mnemos_search_stage_duration_seconds',
            "Time per search stage, from the receipts' latency_ms (embed, dense, bm25, graph…)",
            ('stage',),
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.job_failures = Counter(
            'mnemos_job_failures_total',
            'Job attempts that raised, by job and whether it failed for good (final=true)',
            ('job', 'final'),
            registry=self.registry,
        )
        self.registry.register(_StoreCollector(services))
        on_failure = getattr(services.jobs, 'on_failure', None)
        if callable(on_failure):
            on_failure(self._job_failed)

    def _job_failed(self, job: str, final: bool) -> None:
        self.job_failures.labels(job, 'true' if final else 'false').inc()

    def observe_receipt(self, receipt: Receipt | None) -> None:
        """Feed one search receipt's stage latencies into the stage histogram."""
        if receipt is None:
            return
        for stage, ms in receipt.latency_ms.items():
            self.search_stages.labels(stage).observe(ms / 1000.0)


def observe_receipt(receipt: Receipt | None) -> None:
    """Record a search receipt in the current app's metrics (routes call this)."""
    metrics: Metrics | None = current_app.extensions.get('mnemos.metrics')
    if metrics is not None:
        metrics.observe_receipt(receipt)


class _StoreCollector:
    """Store sizes and queue depth, read when Prometheus scrapes (cheap counts only)."""

    def __init__(self, services: Services) -> None:
        self._services = services

    def describe(self) -> list[Any]:
        return []

    def collect(self) -> Iterator[GaugeMetricFamily]:
        services = self._services
        memories = GaugeMetricFamily(
            'mnemos_memories', 'Stored memories by tier (superseded ones apart)', labels=['tier']
        )
        try:
            stats = services.recall.stats(None)
            for tier, count in sorted(stats.by_tier.items()):
                memories.add_metric([tier], count)
            memories.add_metric(['superseded'], stats.superseded)
            yield memories
            episodes = services.episodes.count()
            yield GaugeMetricFamily('mnemos_episodes', 'Stored episodes', value=episodes)
        except Exception:
            log.exception('metrics: cannot count the vector store')
        depth = GaugeMetricFamily(
            'mnemos_job_queue_depth', 'Messages waiting in each job queue', labels=['queue']
        )
        for queue, size in _queue_depths(services):
            depth.add_metric([queue], size)
        yield depth
        pending = getattr(services.jobs, 'pending', None)
        if callable(pending):
            yield GaugeMetricFamily(
                'mnemos_jobs_pending', 'Accepted jobs not finished yet', value=pending()
            )


def _queue_depths(services: Services) -> list[tuple[str, int]]:
    broker = getattr(services.jobs, 'broker', None)
    if broker is None:
        return []
    out = []
    for queue in sorted(broker.get_declared_queues()):
        try:
            if hasattr(broker, 'queues') and queue in getattr(broker, 'queues', {}):
                out.append((queue, broker.queues[queue].qsize()))  # StubBroker
            elif hasattr(broker, 'client'):
                out.append((queue, int(broker.client.llen(f'{broker.namespace}:{queue}'))))
        except Exception:
            log.exception('metrics: cannot read the depth of queue %s', queue)
    return out


# ---- routes -----------------------------------------------------------------------------------

bp = Blueprint('observability', __name__)


@bp.get('/metrics')
@documented(
    'Prometheus metrics (admin token)',
    responses={200: Raw('text/plain; version=0.0.4', 'Prometheus text exposition format')},
    errors=(403,),
    tag='service',
)
def metrics() -> Response:
    """Prometheus text format; the admin token only (store sizes and traffic of every tenant)."""
    if not g.principal.admin:
        raise Forbidden('only the admin token may read /metrics')
    registry = current_app.extensions['mnemos.metrics'].registry
    return Response(generate_latest(registry), mimetype=CONTENT_TYPE_LATEST)


@bp.get('/readyz')
@documented(
    'Readiness: every store answers a probe',
    responses={200: Ready, 503: Ready},
    auth=False,
    tag='service',
)
def readyz() -> tuple[Response, int]:
    """200 when every store answers a probe, else 503; with the version and each probe."""
    services: Services = current_app.extensions['mnemos']
    checks = {name: _probe(probe) for name, probe in _probes(services).items()}
    ok = all(c.ok for c in checks.values())
    body = Ready(
        status='ready' if ok else 'unavailable',
        version=version(),
        mode='embedded' if services.settings.embedded else 'server',
        checks=checks,
    )
    return jsonify(body.model_dump(mode='json')), 200 if ok else 503


def _probes(services: Services) -> dict[str, Any]:
    probes: dict[str, Any] = {
        'vectors': lambda: services.recall.stats(['readyz']),
        'tokens': lambda: services.agents.principal_for('readyz-probe'),
    }
    kg = services.kg
    if kg is not None:

        def graph() -> None:
            kg.probe()  # the mirror's fill (kg/mirror.py) failed: relations and mentions too
            with contextlib.suppress(NotFound):  # NotFound: the store answered
                kg.entity(str(uuid.UUID(int=0)), ['readyz'])

        probes['graph'] = graph
    broker = getattr(services.jobs, 'broker', None)
    if broker is not None and hasattr(broker, 'client'):
        probes['broker'] = broker.client.ping
    return probes


def _probe(probe: Any) -> Check:
    started = time.perf_counter()
    try:
        probe()
    except Exception as exc:
        log.warning('readyz: probe failed: %s', exc)
        ms = (time.perf_counter() - started) * 1000
        return Check(ok=False, ms=round(ms, 2), error=f'{type(exc).__name__}: {exc}'[:300])
    return Check(ok=True, ms=round((time.perf_counter() - started) * 1000, 2))


# ---- wiring -----------------------------------------------------------------------------------


def install(app: Flask, services: Services) -> None:
    """Request ids, access log, metrics and CORS on `app`; registers /metrics and /readyz."""
    settings = services.settings
    configure_logging(settings)
    metrics = app.extensions['mnemos.metrics'] = Metrics(services)
    origins = _origins(settings.cors_origins)

    @app.before_request
    def _start() -> None:
        g.started = time.perf_counter()
        sent = request.headers.get(REQUEST_ID_HEADER, '')
        g.request_id = sent if _REQUEST_ID.match(sent) else uuid.uuid4().hex

    @app.after_request
    def _finish(response: Response) -> Response:
        rid = g.get('request_id') or uuid.uuid4().hex
        response.headers[REQUEST_ID_HEADER] = rid
        if origins:
            _cors(response, origins)
        started = g.get('started')
        ms = (time.perf_counter() - started) * 1000 if started is not None else 0.0
        rule = request.url_rule
        route = rule.rule if rule is not None else '<unmatched>'
        principal = g.get('principal')
        who = principal.name if principal is not None else '-'
        metrics.requests.labels(request.method, route, str(response.status_code)).observe(ms / 1000)
        access_log.info(
            '%s %s %s %.1fms rid=%s principal=%s',
            request.method,
            route,
            response.status_code,
            ms,
            rid,
            who,
            extra={
                'method': request.method,
                'route': route,
                'status': response.status_code,
                'ms': round(ms, 2),
                'principal': who,
                'request_id': rid,
            },
        )
        return response

    app.register_blueprint(bp)


def _origins(setting: str | None) -> frozenset[str]:
    if not setting:
        return frozenset()
    return frozenset(o.strip().rstrip('/') for o in setting.split(',') if o.strip())


def _cors(response: Response, origins: frozenset[str]) -> None:
    origin = request.headers.get('Origin')
    if not origin:
        return
    if '*' in origins:
        response.headers['Access-Control-Allow-Origin'] = '*'
    elif origin in origins:
        response.headers['Access-Control-Allow-Origin'] = origin
        response.headers.add('Vary', 'Origin')
    else:
        return
    response.headers['Access-Control-Expose-Headers'] = 'X-Request-Id, X-Mnemos-Count, Location'
    if request.method == 'OPTIONS':
        response.headers['Access-Control-Allow-Methods'] = 'GET, POST, PUT, DELETE, OPTIONS'
        response.headers['Access-Control-Allow-Headers'] = (
            'Authorization, Content-Type, X-Request-Id'
        )
        response.headers['Access-Control-Max-Age'] = '600'
