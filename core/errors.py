"""One error tree for the whole service; only api/errors.py maps it to HTTP statuses."""

from __future__ import annotations

from typing import Any


class KnowledgeStoreError(Exception):
    """Base of every domain error; `code` is the stable machine-readable name."""

    code = 'error'

    def __init__(self, message: str, *, details: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class InvalidInput(KnowledgeStoreError):
    """A request field is malformed; `field` names it."""

    code = 'invalid_request'

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f'{field}: {message}', details=[{'loc': field.split('.'), 'msg': message}])
        self.field = field


class InvalidScope(InvalidInput):
    """A scope string does not follow `agent:<id>[:<channel>]`, `team:<id>` or `global`."""

    code = 'invalid_scope'

    def __init__(self, scope: str, field: str = 'scope') -> None:
        super().__init__(
            field,
            f'{scope!r} is not a scope: use agent:<id>, agent:<id>:<channel>, team:<id> or global',
        )


class PayloadTooLarge(KnowledgeStoreError):
    """The request body or one of its texts exceeds the configured limit."""

    code = 'payload_too_large'


class Unauthorized(KnowledgeStoreError):
    """No bearer token, or one the service does not know."""

    code = 'unauthorized'


class Forbidden(KnowledgeStoreError):
    """The principal may not touch this scope (or this operation)."""

    code = 'forbidden'


class ReadOnlyForTeamMember(Forbidden):
    """A team member tried to write its leader's memory."""

    code = 'read_only'

    def __init__(self, scope: str) -> None:
        super().__init__('memory is read-only for team members', details={'scope': scope})


class NotFound(KnowledgeStoreError):
    """The addressed memory, entity, episode or job does not exist (in a readable scope)."""

    code = 'not_found'

    def __init__(self, what: str, ident: str) -> None:
        super().__init__(f'{what} {ident!r} not found', details={'what': what, 'id': ident})


class Conflict(KnowledgeStoreError):
    """The request contradicts stored state (e.g. a duplicate that must not be merged)."""

    code = 'conflict'


class StoreUnavailable(KnowledgeStoreError):
    """A backing store (Qdrant, Kuzu, broker) cannot be reached or opened."""

    code = 'store_unavailable'


class ConfigurationError(KnowledgeStoreError):
    """Settings are invalid or combine options that cannot work together."""

    code = 'configuration_error'


class ExtractionFailed(KnowledgeStoreError):
    """Entity/relation extraction failed for one text; callers log it and go on."""

    code = 'extraction_failed'
