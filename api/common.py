"""Helpers every blueprint uses: services, the caller, and validated input."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from flask import Response, current_app, g, request
from pydantic import BaseModel, ValidationError

from api.errors import MalformedRequest
from core import jsonsafe
from core.auth import Principal
from core.errors import InvalidInput, NotFound

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


TOKEN_ID_RE = re.compile(r'\Atok_[0-9a-f]{16}\Z')


def is_uuid(value: str) -> bool:
    """True when `value` parses as a uuid (memory, entity and job ids are uuids)."""
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def is_token_id(value: str) -> bool:
    """True when `value` has the shape of the ids `POST /v1/tokens` hands out."""
    return bool(TOKEN_ID_RE.match(value))


class MalformedId(NotFound):
    """A path id that does not have its route's shape: it names nothing, so it is a 404, and
    the details name the path parameter and the shape it must have."""

    def __init__(self, field: str, what: str, ident: str, shape: str) -> None:
        super().__init__(what, ident)
        self.details = [{'loc': ['path', field], 'msg': f'{what} ids are {shape}', 'id': ident}]


def path_id(field: str, what: str, value: str, valid: Callable[[str], bool], shape: str) -> str:
    """`value` when `valid` accepts it, else `MalformedId` naming `field`; every id taken from
    a URL path goes through here before any store sees it."""
    if not valid(value):
        raise MalformedId(field, what, value, shape)
    return value


def memory_path_id(value: str, field: str = 'ident') -> str:
    """A memory id from the path (a uuid)."""
    return path_id(field, 'memory', value, is_uuid, 'uuids')


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


def model_json(model: BaseModel, status: int = 200) -> Response:
    """`model` as a JSON response, serialised by pydantic in one pass: `jsonify(model_dump())`
    builds every dict first and encodes them in Python (~300 us for a search's ten hits and
    receipt against ~70 us)."""
    return Response(model.model_dump_json(), status=status, mimetype='application/json')


def json_body(*, check_values: bool = True) -> Any:
    """The parsed JSON body: 400 naming the problem if it is not strict JSON (no NaN or
    Infinity), 422 naming the value nested deeper than 32 levels and, unless `check_values` is
    off (routes that report per item), the first value the store cannot keep unchanged."""
    if not request.is_json:
        raise MalformedRequest(
            'send a JSON body with Content-Type: application/json', details={'loc': ['body']}
        )
    try:
        data = jsonsafe.loads(request.get_data(cache=True))
    except jsonsafe.NotJson as exc:
        raise MalformedRequest(
            f'body is not valid JSON: {exc}', details={'loc': ['body']}
        ) from None
    deep = jsonsafe.too_deep(data)
    if deep is not None:
        raise RequestTooDeep(deep)
    if check_values:
        check_storable(data)
    return data


def check_storable(data: Any, prefix: tuple[str | int, ...] = ()) -> None:
    """422 naming the first key or value (lone surrogate, integer beyond 64 bits) that the
    store would refuse or silently change."""
    bad = jsonsafe.unstorable(data)
    if bad is not None:
        raise ValueUnstorable([*prefix, *bad[0]], bad[1])


class ValueUnstorable(InvalidInput):
    """A value of the body cannot be stored as sent; `details` name where."""

    def __init__(self, loc: list[str | int], reason: str) -> None:
        super().__init__('.'.join(map(str, loc)) or 'body', reason)
        self.details = [{'loc': loc, 'msg': reason, 'type': 'value_error'}]


class RequestTooDeep(InvalidInput):
    """A value of the body is nested deeper than `jsonsafe.MAX_DEPTH` containers."""

    def __init__(self, loc: list[str | int]) -> None:
        super().__init__('.'.join(map(str, loc)), f'nested deeper than {jsonsafe.MAX_DEPTH} levels')
        self.details = [{'loc': loc, 'msg': f'nested deeper than {jsonsafe.MAX_DEPTH} levels'}]


def parse_json(model: type[M]) -> M:
    """The JSON body validated as `model`; 400 for non-JSON, 422 naming each bad field."""
    data = json_body()
    if not isinstance(data, dict):
        raise MalformedRequest('body must be a JSON object', details={'loc': ['body']})
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise RequestInvalid(exc) from None
    except OverflowError:  # a validator's date arithmetic; pydantic only wraps ValueError
        raise InvalidInput('body', 'a date or number is out of range') from None


def parse_args(model: type[M]) -> M:
    """Query-string parameters validated as `model`."""
    try:
        return model.model_validate(request.args.to_dict())
    except ValidationError as exc:
        raise RequestInvalid(exc) from None
    except OverflowError:
        raise InvalidInput('query', 'a date or number is out of range') from None
