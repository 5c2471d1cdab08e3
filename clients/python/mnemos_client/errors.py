"""One error tree: every failure of a call is a `MnemosError`, whether the service answered with
an error, did not answer, or the request was refused here before it was sent."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx
import pydantic


class MnemosError(Exception):
    """An error of a call: `status` is the HTTP status (0: no answer), `error` the stable code
    (`not_found`, `invalid_request`…), `message` the text, `details` a list of objects whose
    `loc` names the field at fault."""

    def __init__(
        self,
        status: int,
        error: str,
        message: str,
        details: Any = None,
        body: Any = None,
    ) -> None:
        super().__init__(f'{status} {error}: {message}' if status else message)
        self.status = status
        self.error = error
        self.message = message
        self.details: list[dict[str, Any]] = normalize_details(details)
        self.body = body


class ConnectionFailed(MnemosError):
    """The service did not answer (refused, timed out, DNS), after the retries."""


class BadRequest(MnemosError):
    """400: the body is not JSON, or not a JSON object."""


class Unauthorized(MnemosError):
    """401: no token, or one the service does not know."""


class Forbidden(MnemosError):
    """403: the token may not touch this scope or operation."""


class NotFound(MnemosError):
    """404: no such memory, entity, job… in a scope the token can read."""


class Conflict(MnemosError):
    """409: the request contradicts stored state."""


class PayloadTooLarge(MnemosError):
    """413: a text or the body exceeds the service's limit."""


class InvalidRequest(MnemosError):
    """422: a field is invalid (found by the service, or here before sending); `details[i]['loc']`
    names it."""


class RateLimited(MnemosError):
    """429: too many requests, after the retries."""


class ServerError(MnemosError):
    """5xx: the service failed (503: a store is unavailable), after the retries for 503."""


class UnexpectedAnswer(MnemosError):
    """A 2xx answer this client cannot read (not JSON, or not the documented shape)."""


_BY_STATUS: dict[int, type[MnemosError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    413: PayloadTooLarge,
    422: InvalidRequest,
    429: RateLimited,
}


def normalize_details(details: Any) -> list[dict[str, Any]]:
    """The service's `details` as a list of objects, whatever shape was sent."""
    if details is None:
        return []
    if isinstance(details, Mapping):
        return [dict(details)]
    if isinstance(details, list):
        return [dict(d) if isinstance(d, Mapping) else {'msg': str(d)} for d in details]
    return [{'msg': str(details)}]


def error_from_response(response: httpx.Response) -> MnemosError:
    """The typed exception of an error answer (its JSON error body, or its status line)."""
    try:
        body: Any = response.json()
    except ValueError:
        body = None
    if isinstance(body, Mapping) and 'error' in body:
        code = str(body.get('error'))
        message = str(body.get('message') or code)
        details = body.get('details')
    else:
        code = response.reason_phrase.lower().replace(' ', '_') or 'error'
        message = response.text[:500] or code
        details = None
    cls = _BY_STATUS.get(response.status_code)
    if cls is None:
        cls = ServerError if response.status_code >= 500 else MnemosError
    return cls(response.status_code, code, message, details, body)


def invalid_request(exc: pydantic.ValidationError) -> InvalidRequest:
    """A request refused here: pydantic's errors in the service's shape (`loc`, `msg`, `type`)."""
    details = [
        {'loc': [str(p) for p in e['loc']], 'msg': e['msg'], 'type': e['type']}
        for e in exc.errors(include_url=False)
    ]
    message = '; '.join(f'invalid {".".join(d["loc"]) or "body"}: {d["msg"]}' for d in details)
    return InvalidRequest(422, 'invalid_request', message, details)


def unexpected_answer(exc: Exception, body: Any) -> UnexpectedAnswer:
    """A 2xx answer that does not parse."""
    return UnexpectedAnswer(0, 'unexpected_answer', f'cannot read the answer: {exc}', None, body)


__all__ = [
    'BadRequest',
    'Conflict',
    'ConnectionFailed',
    'Forbidden',
    'InvalidRequest',
    'MnemosError',
    'NotFound',
    'PayloadTooLarge',
    'RateLimited',
    'ServerError',
    'Unauthorized',
    'UnexpectedAnswer',
    'error_from_response',
    'invalid_request',
    'normalize_details',
]
