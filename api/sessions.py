"""Consolidation routes: complete a session, follow a job, list episodes."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, url_for
from pydantic import BaseModel, ConfigDict, Field

from api.common import (
    is_uuid,
    parse_args,
    parse_json,
    path_id,
    principal,
    require_read,
    require_write,
    services,
)
from api.documented import SCOPED, documented
from api.responses import EpisodeList, JobAccepted, JobList
from consolidation.models import EpisodeOut, SessionIn, is_session_key
from core.errors import InvalidInput, NotFound
from core.scopes import Identifier, ScopeId
from jobs.models import JobInfo

bp = Blueprint('sessions', __name__, url_prefix='/v1')


@bp.post('/sessions/<session_key>/complete')
@documented(
    'Consolidate a finished session into an episode (async)',
    responses={202: JobAccepted},
    body=SessionIn,
    path_params={'session_key': 'your session id, [A-Za-z0-9_.:-]{1,200}'},
    errors=SCOPED,
    tag='sessions',
)
def complete(session_key: str) -> tuple[Response, int, dict[str, str]]:
    """Accept a finished session for consolidation: 202 with the job id and the episode id."""
    if not is_session_key(session_key):
        raise InvalidInput('session_key', 'must match [A-Za-z0-9_.:-]{1,200}')
    session = parse_json(SessionIn)
    require_write(session.scope)
    job_id, episode_id = services().episodes.complete_session(session_key, session)
    location = url_for('sessions.job_status', job_id=job_id)
    body = {'job_id': job_id, 'episode_id': episode_id, 'status_url': location}
    return jsonify(body), 202, {'Location': location}


@bp.get('/jobs/<job_id>')
@documented(
    "A job's state",
    responses={200: JobInfo},
    path_params={'job_id': 'job id from a 202 response'},
    tag='sessions',
)
def job_status(job_id: str) -> Response:
    """A job's state (queued, running, done, failed or cancelled), attempts, error, result."""
    path_id('job_id', 'job', job_id, is_uuid, 'uuids')
    info = services().jobs.get(job_id)
    caller = principal()
    # jobs of scopes the caller cannot read, and system jobs for non-admins, do not exist to it
    if info is None or not (caller.admin or (info.scope and caller.can_read(info.scope))):
        raise NotFound('job', job_id)
    return jsonify(info.model_dump(mode='json'))


class JobsQuery(BaseModel):
    """Query of `GET /v1/jobs`."""

    model_config = ConfigDict(extra='forbid')

    scope: ScopeId | None = None
    limit: int = Field(default=20, ge=1, le=200)


@bp.get('/jobs')
@documented(
    'The newest jobs of a scope',
    responses={200: JobList},
    query=JobsQuery,
    errors=SCOPED,
    tag='sessions',
    description='Without `scope`, every job (system jobs too): admin token only.',
)
def jobs() -> Response:
    """The newest jobs of a scope; without `scope` (admin token only), every job."""
    query = parse_args(JobsQuery)
    if query.scope is None:
        if not principal().admin:
            raise InvalidInput('scope', 'required for agent tokens')
    else:
        require_read(query.scope)
    found = services().jobs.recent(query.scope, query.limit)
    return jsonify(jobs=[j.model_dump(mode='json') for j in found])


class EpisodesQuery(BaseModel):
    model_config = ConfigDict(extra='forbid')

    scope: ScopeId
    user_id: Identifier | None = None
    limit: int = Field(default=20, ge=1, le=200)


@bp.get('/episodes')
@documented(
    'Episodes of a scope, newest first',
    responses={200: EpisodeList},
    query=EpisodesQuery,
    errors=SCOPED,
    tag='sessions',
)
def episodes() -> Response:
    """Live episodes of a scope (optionally one user's), newest session first."""
    query = parse_args(EpisodesQuery)
    require_read(query.scope)
    found = services().episodes.live(query.scope, query.user_id, query.limit)
    out = [EpisodeOut.model_validate(e.model_dump()).model_dump(mode='json') for e in found]
    return jsonify(episodes=out, count=len(out))
