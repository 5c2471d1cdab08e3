"""The only place that knows HTTP status codes: domain errors and HTTP errors become JSON."""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response, jsonify
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from core import errors

log = logging.getLogger(__name__)

STATUS: dict[type[errors.KnowledgeStoreError], int] = {
    errors.InvalidInput: 422,
    errors.PayloadTooLarge: 413,
    errors.Unauthorized: 401,
    errors.Forbidden: 403,
    errors.NotFound: 404,
    errors.Conflict: 409,
    errors.StoreUnavailable: 503,
    errors.ExtractionFailed: 422,
    errors.ConfigurationError: 500,
}


class MalformedRequest(errors.KnowledgeStoreError):
    """The body is not JSON (or not the JSON shape the route takes)."""

    code = 'malformed_request'


STATUS[MalformedRequest] = 400


def status_of(exc: errors.KnowledgeStoreError) -> int:
    """HTTP status for a domain error: the nearest registered class wins."""
    for cls in type(exc).__mro__:
        if cls in STATUS:
            return STATUS[cls]
    return 500


def error_details(details: object, message: str, code: str) -> list[dict[str, Any]]:
    """`details` as the one shape every error uses: a non-empty list of objects.

    Each object has `msg` and `type` (pydantic's error type for validation, else the error
    code), `loc` when a request field is at fault, and sometimes context keys such as `id`.
    """
    if isinstance(details, dict):
        items: list[Any] = [details]
    elif isinstance(details, list | tuple):
        items = list(details) or [{}]
    elif details is None:
        items = [{}]
    else:
        items = [{'msg': str(details)}]
    out = []
    for item in items:
        extra = dict(item) if isinstance(item, dict) else {'msg': str(item)}
        entry: dict[str, Any] = {}
        if extra.get('loc') is not None:
            entry['loc'] = list(extra.pop('loc'))
        extra.pop('loc', None)
        entry['msg'] = str(extra.pop('msg', None) or message)
        entry['type'] = str(extra.pop('type', None) or code)
        entry.update(extra)
        out.append(entry)
    return out


def error_response(code: str, message: str, status: int, details: object = None) -> Response:
    """The JSON error envelope every route uses: `{error, message, details: [...]}`."""
    response = jsonify(error=code, message=message, details=error_details(details, message, code))
    response.status_code = status
    if status == 401:
        response.headers['WWW-Authenticate'] = 'Bearer realm="mnemos"'
    return response


def register(app: Flask) -> None:
    """Install the handlers on `app`."""

    @app.errorhandler(errors.KnowledgeStoreError)
    def _domain(exc: errors.KnowledgeStoreError) -> Response:
        return error_response(exc.code, exc.message, status_of(exc), exc.details)

    @app.errorhandler(RequestEntityTooLarge)
    def _too_large(exc: RequestEntityTooLarge) -> Response:
        limit = app.config.get('MAX_CONTENT_LENGTH')
        return error_response(
            'payload_too_large', f'request body exceeds {limit} bytes', 413, {'loc': ['body']}
        )

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> Response:
        code = (exc.name or 'error').lower().replace(' ', '_')
        response = error_response(code, exc.description or code, exc.code or 500)
        for name, value in exc.get_headers():
            if name.lower() != 'content-type':  # e.g. Allow on a 405
                response.headers[name] = value
        return response

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Response:
        log.exception('unhandled error')
        return error_response('internal_error', 'internal error; see the service log', 500)
