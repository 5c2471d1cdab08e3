"""Mnemos client: sync `Mnemos` and async `AsyncMnemos` over the HTTP API (httpx, pydantic).

    from mnemos_client import Mnemos

    with Mnemos('http://127.0.0.1:8765', token='...') as mnemos:
        mnemos.remember('agent:main', 'Alice prefers green tea', kind='preference')
        print(mnemos.search('what does Alice drink?', 'agent:main').hits[0].text)

Framework adapters are submodules with their own extras: `mnemos_client.langgraph`
(`pip install 'mnemos-client[langgraph]'`), `mnemos_client.langchain`, `mnemos_client.llamaindex`.
"""

from mnemos_client._calls import PATH_ID_PATTERNS, UUID_PATTERN, path_segment
from mnemos_client.async_client import AsyncMnemos
from mnemos_client.client import Mnemos
from mnemos_client.errors import (
    BadRequest,
    Conflict,
    ConnectionFailed,
    Forbidden,
    InvalidRequest,
    MnemosError,
    NotFound,
    PayloadTooLarge,
    RateLimited,
    ServerError,
    Unauthorized,
    UnexpectedAnswer,
    normalize_details,
)
from mnemos_client.models import (
    BatchResult,
    Bundle,
    CaptureResult,
    EntityDetail,
    EntityList,
    Episode,
    Hit,
    ImportReport,
    JobInfo,
    KGSearchResponse,
    Memory,
    MemoryIn,
    MemoryPage,
    SearchFilters,
    SearchResponse,
    SessionAccepted,
    SessionMessage,
    Stats,
    WriteResult,
)
from mnemos_client.retry import Retry

__version__ = '0.1.0'

__all__ = [
    'PATH_ID_PATTERNS',
    'UUID_PATTERN',
    'AsyncMnemos',
    'BadRequest',
    'BatchResult',
    'Bundle',
    'CaptureResult',
    'Conflict',
    'ConnectionFailed',
    'EntityDetail',
    'EntityList',
    'Episode',
    'Forbidden',
    'Hit',
    'ImportReport',
    'InvalidRequest',
    'JobInfo',
    'KGSearchResponse',
    'Memory',
    'MemoryIn',
    'MemoryPage',
    'Mnemos',
    'MnemosError',
    'NotFound',
    'PayloadTooLarge',
    'RateLimited',
    'Retry',
    'SearchFilters',
    'SearchResponse',
    'ServerError',
    'SessionAccepted',
    'SessionMessage',
    'Stats',
    'Unauthorized',
    'UnexpectedAnswer',
    'WriteResult',
    'normalize_details',
    'path_segment',
]
