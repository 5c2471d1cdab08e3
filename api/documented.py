"""What the OpenAPI document says about a route, declared once, on the route itself:

    @bp.get('/things/<thing_id>')
    @documented('One thing', responses={200: ThingOut}, errors=(403, 404), tag='things',
                path_params={'thing_id': 'id from POST /v1/things'})
    def get_thing(thing_id: str) -> Response: ...

The method, the path and the Flask endpoint come from the route; `operations_of(app)` reads every
mounted route's declaration, in the order the routes are mounted. tests/e2e/test_openapi.py fails
when a Flask route has no declaration. Error responses are added from what the entry declares:
500 for every route, 401, 429 and 503 for routes that need a token, 400/413/422 for a JSON body,
422 for query parameters, 404/405 for path parameters; `errors` adds the rest. Every error has
the one `ErrorBody` shape.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, cast

from flask import Flask
from pydantic import BaseModel

Method = Literal['get', 'post', 'put', 'patch', 'delete']
F = TypeVar('F', bound=Callable[..., Any])

# the attribute of a view function that holds its declaration
_ATTRIBUTE = '__openapi__'
_SKIPPED_METHODS = frozenset({'HEAD', 'OPTIONS'})
_PARAMETER = re.compile(r'<(?:[a-z]+:)?([A-Za-z_]+)>')


@dataclass(frozen=True)
class Raw:
    """A body that is not a JSON model: NDJSON, Markdown, Prometheus text, HTML."""

    media_type: str
    description: str
    schema: Mapping[str, Any] = field(default_factory=lambda: {'type': 'string'})


Body = type[BaseModel] | Raw


@dataclass(frozen=True)
class Doc:
    """What a route declares about itself; the route adds method, path and endpoint."""

    summary: str
    responses: Mapping[int, Body]
    body: Body | None = None
    query: type[BaseModel] | None = None
    path_params: Mapping[str, str] = field(default_factory=dict)
    errors: Sequence[int] = ()
    auth: bool = True
    tag: str = 'memory'
    description: str | None = None


@dataclass(frozen=True)
class Operation(Doc):
    """One documented route: everything the OpenAPI document says about it."""

    method: Method = 'get'
    path: str = ''
    endpoint: str = ''

    def error_statuses(self) -> list[int]:
        """Every error status this route may answer with."""
        statuses = {*self.errors, 500}
        if self.auth:
            # the token registry is a store too; 429: too many unknown tokens from one address
            statuses |= {401, 429, 503}
        if self.body is not None:
            statuses |= {413, 422} if isinstance(self.body, Raw) else {400, 413, 422}
        if self.query is not None:
            statuses.add(422)
        if self.path_params:
            statuses |= {404, 405}
        return sorted(statuses - set(self.responses))


def documented(
    summary: str,
    *,
    responses: Mapping[int, Body],
    body: Body | None = None,
    query: type[BaseModel] | None = None,
    path_params: Mapping[str, str] | None = None,
    errors: Sequence[int] = (),
    auth: bool = True,
    tag: str = 'memory',
    description: str | None = None,
) -> Callable[[F], F]:
    """Declare the decorated view's OpenAPI entry (see the module docstring)."""
    doc = Doc(
        summary=summary,
        responses=responses,
        body=body,
        query=query,
        path_params=dict(path_params or {}),
        errors=errors,
        auth=auth,
        tag=tag,
        description=description,
    )

    def declare(view: F) -> F:
        setattr(view, _ATTRIBUTE, doc)
        return view

    return declare


def openapi_path(rule: str) -> str:
    """A Flask rule as an OpenAPI path: `/v1/things/<thing_id>` -> `/v1/things/{thing_id}`."""
    return _PARAMETER.sub(r'{\1}', rule)


def operations_of(app: Flask) -> list[Operation]:
    """Every declared route of `app`, in the order the routes were mounted; a route without a
    declaration is left out (tests/e2e/test_openapi.py names it)."""
    found: list[Operation] = []
    for rule in app.url_map.iter_rules():
        doc = getattr(app.view_functions.get(rule.endpoint), _ATTRIBUTE, None)
        if not isinstance(doc, Doc):
            continue
        for method in sorted((rule.methods or set()) - _SKIPPED_METHODS):
            found.append(
                Operation(
                    **vars(doc),
                    method=cast(Method, method.lower()),
                    path=openapi_path(rule.rule),
                    endpoint=rule.endpoint,
                )
            )
    return found


# what the routes of several blueprints share
SCOPED = (403,)  # the token may not read or write this scope
MEMORY_ID = {'ident': 'memory id (a uuid) from a write or a search'}
