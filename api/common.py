"""Helpers every blueprint uses: services, the caller, and validated input."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from flask import current_app, g, request
from pydantic import BaseModel, ValidationError

from api.errors import MalformedRequest
from core.auth import Principal
from core.errors import InvalidInput

if TYPE_CHECKING:
    from runtime.bootstrap import Services

M = TypeVar('M', bound=BaseModel)


def services() -> Services:
    """The process's Services (built once by create_app)."""
    return current_app.extensions['mnemos']


def principal() -> Principal:
    """The authenticated caller of this request."""
    return g.principal


def require_read(scope: str) -> None:
    """403 unless the caller may read `scope`."""
    principal().require_read(scope)


def require_write(scope: str) -> None:
    """403 unless the caller may write `scope` (team members never write a leader's)."""
    principal().require_write(scope)


class RequestInvalid(InvalidInput):
    """Pydantic rejected the request; details list each offending field."""

    def __init__(self, exc: ValidationError, prefix: tuple[str | int, ...] = ()) -> None:
        details = pydantic_details(exc, prefix)
        fields = ', '.join('.'.join(str(p) for p in d['loc']) or 'body' for d in details)
        super().__init__(fields or 'body', details[0]['msg'] if details else 'invalid')
        self.message = f'invalid request: {fields}'
        self.details = details


def pydantic_details(exc: ValidationError, prefix: tuple[str | int, ...] = ()) -> list[Any]:
    """JSON-safe error list (no input echo, no exception objects)."""
    errors = exc.errors(include_url=False, include_context=False, include_input=False)
    return [{'loc': [*prefix, *e['loc']], 'msg': e['msg'], 'type': e['type']} for e in errors]


def json_body() -> Any:
    """The parsed JSON body, or a 400 naming the problem."""
    if not request.is_json:
        raise MalformedRequest(
            'send a JSON body with Content-Type: application/json', details={'loc': ['body']}
        )
    data = request.get_json(silent=True)
    if data is None:
        raise MalformedRequest('body is not valid JSON', details={'loc': ['body']})
    return data


def parse_json(model: type[M]) -> M:
    """The JSON body validated as `model`; 400 for non-JSON, 422 naming each bad field."""
    data = json_body()
    if not isinstance(data, dict):
        raise MalformedRequest('body must be a JSON object', details={'loc': ['body']})
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise RequestInvalid(exc) from None


def parse_args(model: type[M]) -> M:
    """Query-string parameters validated as `model`."""
    try:
        return model.model_validate(request.args.to_dict())
    except ValidationError as exc:
        raise RequestInvalid(exc) from None
